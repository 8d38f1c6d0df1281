// Naive port: one thread per row, three passes over it.
extern "C" __global__ void softmax_rows_naive(int rows, int cols, const float* x, float* y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float mx = xr[0];
    for (int c = 1; c < cols; ++c)
        mx = xr[c] > mx ? xr[c] : mx;
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) {
        yr[c] = expf(xr[c] - mx);
        sum += yr[c];
    }
    float inv = 1.0f / sum;
    for (int c = 0; c < cols; ++c)
        yr[c] *= inv;
}
