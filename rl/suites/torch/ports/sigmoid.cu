// Naive port: one thread per element of the flat ROWS x COLS array.
extern "C" __global__ void sigmoid_naive(const float* x, float* y, int rows, int cols)
{
    int n = rows * cols;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 1.0f / (1.0f + expf(-x[i]));
}
