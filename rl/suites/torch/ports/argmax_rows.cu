// Naive port: one thread per row, a sequential scan keeping the first maximum (strict >).
extern "C" __global__ void argmax_rows_naive(const float* x, long long* y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float best = xr[0];
    int bi = 0;
    for (int c = 1; c < cols; ++c) {
        float v = xr[c];
        if (v > best) { best = v; bi = c; }
    }
    y[r] = (long long)bi;
}
