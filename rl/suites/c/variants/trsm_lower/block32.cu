// params: kind=naive_port block_x=32
// launch: grid=(cdiv(nrhs, 32)) block=(32)
// The naive port in 32-thread blocks: few right-hand sides fill more SMs.
extern "C" __global__ void trsm_lower_block32(int n, int nrhs, const float* l, float* b)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= nrhs) return;
    for (int i = 0; i < n; ++i) {
        float acc = b[(size_t)i * nrhs + j];
        for (int k = 0; k < i; ++k)
            acc -= l[(size_t)i * n + k] * b[(size_t)k * nrhs + j];
        b[(size_t)i * nrhs + j] = acc / l[(size_t)i * n + i];
    }
}
