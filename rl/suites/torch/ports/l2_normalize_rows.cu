// Naive port: one thread per row: sum of squares, then x / max(sqrt(ss), 1e-12).
extern "C" __global__ void l2_normalize_rows_naive(const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float ss = 0.0f;
    for (int c = 0; c < cols; ++c) ss += xr[c] * xr[c];
    float norm = fmaxf(sqrtf(ss), 1e-12f);
    for (int c = 0; c < cols; ++c) yr[c] = xr[c] / norm;
}
