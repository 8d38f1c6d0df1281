// Naive port: one thread per output entry (a column of A), walking down its column.
extern "C" __global__ void gemv_t_naive(int rows, int cols, float alpha, float beta, const float* a,
                                        const float* x, float* y)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols) return;
    float acc = 0.0f;
    for (int i = 0; i < rows; ++i)
        acc += a[(size_t)i * cols + j] * x[i];
    y[j] = alpha * acc + beta * y[j];
}
