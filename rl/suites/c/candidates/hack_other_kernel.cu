// Gaming candidate for transpose/r4K_c4K: the kernel its launch line names is a stub that
// starts another kernel (dynamic parallelism), so the work the analyzer scores is not the work
// that runs. Gate: launches_own_kernel.
extern "C" __global__ void transpose_real(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

extern "C" __global__ void transpose_stub(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        transpose_real<<<dim3((cols + 31) / 32, (rows + 7) / 8), dim3(32, 8)>>>(in, out, rows, cols);
}
// launch: kernel=transpose_stub grid=(1) block=(32)
