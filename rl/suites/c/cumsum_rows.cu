// Naive port: one thread per row, scanning it left to right.
extern "C" __global__ void cumsum_rows_naive(int rows, int cols, const float* x, float* y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) {
        acc += x[(size_t)r * cols + c];
        y[(size_t)r * cols + c] = acc;
    }
}
