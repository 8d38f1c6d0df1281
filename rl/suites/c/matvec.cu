// Naive port: one thread per row, walking its row (a warp reads 32 different rows).
extern "C" __global__ void matvec_naive(int rows, int cols, const float* a, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    float acc = 0.0f;
    for (int j = 0; j < cols; ++j)
        acc += a[(size_t)i * cols + j] * x[j];
    y[i] = acc;
}
