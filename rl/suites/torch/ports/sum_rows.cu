// Naive port: one thread per row, a sequential loop over it (a warp's loads are a row apart).
extern "C" __global__ void sum_rows_naive(const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float v = 0.0f;
    for (int c = 0; c < cols; ++c) v = v + xr[c];
    y[r] = v;
}
