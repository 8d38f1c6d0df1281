// Naive port: one thread per row of A (a warp's loads are k floats apart).
extern "C" __global__ void matvec_naive(const float* a, const float* x, float* y, int m, int k)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m) return;
    float acc = 0.0f;
    for (int p = 0; p < k; ++p)
        acc += a[(size_t)row * k + p] * x[p];
    y[row] = acc;
}
