// Naive port: one thread per element of C, blockIdx.z picks the matrix pair, a dot product over k.
extern "C" __global__ void matmul_batched_naive(const float* a, const float* b, float* c, int batch, int m, int k, int n)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z;
    if (z >= batch || row >= m || col >= n) return;
    const float* az = a + (size_t)z * m * k;
    const float* bz = b + (size_t)z * k * n;
    float acc = 0.0f;
    for (int p = 0; p < k; ++p)
        acc += az[(size_t)row * k + p] * bz[(size_t)p * n + col];
    c[(size_t)z * m * n + (size_t)row * n + col] = acc;
}
