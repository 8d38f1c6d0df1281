// Naive port: one thread per row; x + residual recomputed in each of the three passes.
extern "C" __global__ void residual_layernorm_naive(const float* x, const float* residual, const float* weight,
                                                    const float* bias, float* y, int tokens, int hidden)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= tokens) return;
    size_t base = (size_t)r * hidden;
    float sum = 0.0f;
    for (int c = 0; c < hidden; ++c) sum += x[base + c] + residual[base + c];
    float mean = sum / hidden;
    float var = 0.0f;
    for (int c = 0; c < hidden; ++c) { float d = x[base + c] + residual[base + c] - mean; var += d * d; }
    var /= hidden;
    float rstd = 1.0f / sqrtf(var + 1e-5f);
    for (int c = 0; c < hidden; ++c)
        y[base + c] = (x[base + c] + residual[base + c] - mean) * rstd * weight[c] + bias[c];
}
