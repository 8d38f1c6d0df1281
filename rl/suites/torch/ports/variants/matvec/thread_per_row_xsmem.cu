// params: kind=thread_per_row xsmem=1 block_x=256
// launch: grid=(cdiv(m, 256)) block=(256)
// A poor port that looks optimized: x is staged in shared memory in chunks of 1024, but each thread
// still walks its own row, so a warp's loads of A remain k floats apart (32 sectors per request).
extern "C" __global__ void matvec_thread_per_row_xsmem(const float* a, const float* x, float* y, int m, int k)
{
    __shared__ float xs[1024];
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    for (int p0 = 0; p0 < k; p0 += 1024) {
        for (int j = threadIdx.x; j < 1024; j += blockDim.x)
            xs[j] = p0 + j < k ? x[p0 + j] : 0.0f;
        __syncthreads();
        int len = min(1024, k - p0);
        if (row < m)
            for (int j = 0; j < len; ++j) acc += a[(size_t)row * k + p0 + j] * xs[j];
        __syncthreads();
    }
    if (row < m) y[row] = acc;
}
