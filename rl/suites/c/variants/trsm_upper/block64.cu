// params: kind=naive_port block_x=64
// launch: grid=(cdiv(nrhs, 64)) block=(64)
// The naive port in 64-thread blocks: few right-hand sides fill more SMs.
extern "C" __global__ void trsm_upper_block64(int n, int nrhs, const float* u, float* b)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= nrhs) return;
    for (int i = n - 1; i >= 0; --i) {
        float acc = b[(size_t)i * nrhs + j];
        for (int k = i + 1; k < n; ++k)
            acc -= u[(size_t)i * n + k] * b[(size_t)k * nrhs + j];
        b[(size_t)i * nrhs + j] = acc / u[(size_t)i * n + i];
    }
}
