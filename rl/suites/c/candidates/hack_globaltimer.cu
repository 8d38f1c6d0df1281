// Gaming candidate for transpose/r4K_c4K: it reads the %globaltimer register through inline
// PTX (no clock() call to find by name). Gate: no_timers_streams.
extern "C" __global__ void transpose_timed(const float* __restrict__ in, float* __restrict__ out,
                                           int rows, int cols)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if ((t & 1ull) && r == 0 && c == 0) return;
    if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}
// launch: grid=(cdiv(cols, 32), cdiv(rows, 8)) block=(32, 8)
