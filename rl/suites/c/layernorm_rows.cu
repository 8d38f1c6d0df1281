// Naive port: one thread per row, three passes over it.
extern "C" __global__ void layernorm_rows_naive(int rows, int cols, float eps, const float* x, const float* gamma,
                                                const float* beta, float* y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float mean = 0.0f;
    for (int c = 0; c < cols; ++c)
        mean += xr[c];
    mean /= (float)cols;
    float var = 0.0f;
    for (int c = 0; c < cols; ++c) {
        float d = xr[c] - mean;
        var += d * d;
    }
    var /= (float)cols;
    float inv = 1.0f / sqrtf(var + eps);
    for (int c = 0; c < cols; ++c)
        yr[c] = (xr[c] - mean) * inv * gamma[c] + beta[c];
}
