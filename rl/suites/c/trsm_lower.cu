// Naive port: one thread per right-hand side (a column of B), walking the rows in order.
extern "C" __global__ void trsm_lower_naive(int n, int nrhs, const float* l, float* b)
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
