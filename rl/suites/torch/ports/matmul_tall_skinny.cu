// Naive port: one thread per element of C, row from y and column from x, a dot product over k.
extern "C" __global__ void matmul_tall_skinny_naive(const float* a, const float* b, float* c, int m, int k, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    float acc = 0.0f;
    for (int p = 0; p < k; ++p)
        acc += a[(size_t)row * k + p] * b[(size_t)p * n + col];
    c[(size_t)row * n + col] = acc;
}
