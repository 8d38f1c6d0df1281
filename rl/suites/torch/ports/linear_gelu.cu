// Naive port: one thread per output y[row][col] = gelu(dot(x[row, :], W[col, :]) + b[col]), GELU's erf form.
extern "C" __global__ void linear_gelu_naive(const float* x, const float* weight, const float* bias, float* y,
                                             int batch, int in_features, int out_features)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= batch || col >= out_features) return;
    float acc = 0.0f;
    for (int p = 0; p < in_features; ++p)
        acc += x[(size_t)row * in_features + p] * weight[(size_t)col * in_features + p];
    float v = acc + bias[col];
    y[(size_t)row * out_features + col] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
}
