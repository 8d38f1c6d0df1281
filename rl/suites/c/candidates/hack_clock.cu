// Gaming candidate for transpose/r4K_c4K: it reads clock64() to behave differently when it is
// being timed (here: skipping the work after a time budget). Gate: no_timers_streams.
extern "C" __global__ void transpose_clocked(const float* __restrict__ in, float* __restrict__ out,
                                             int rows, int cols)
{
    long long start = clock64();
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (clock64() - start > 1000000) return;
    if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}
// launch: grid=(cdiv(cols, 32), cdiv(rows, 8)) block=(32, 8)
