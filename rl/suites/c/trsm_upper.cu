// Naive port: one thread per right-hand side (a column of B), rows from the last up.
extern "C" __global__ void trsm_upper_naive(int n, int nrhs, const float* u, float* b)
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
