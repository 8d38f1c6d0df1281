// Naive port: one thread per row: mean, biased variance, then (x - mean) * rstd * w + b.
extern "C" __global__ void layernorm_naive(const float* x, const float* weight, const float* bias, float* y,
                                           int tokens, int hidden)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= tokens) return;
    const float* xr = x + (size_t)r * hidden;
    float* yr = y + (size_t)r * hidden;
    float sum = 0.0f;
    for (int c = 0; c < hidden; ++c) sum += xr[c];
    float mean = sum / hidden;
    float var = 0.0f;
    for (int c = 0; c < hidden; ++c) { float d = xr[c] - mean; var += d * d; }
    var /= hidden;
    float rstd = 1.0f / sqrtf(var + 1e-5f);
    for (int c = 0; c < hidden; ++c) yr[c] = (xr[c] - mean) * rstd * weight[c] + bias[c];
}
