// params: kind=fast_math block_x=256
// launch: grid=(cdiv(rows * cols, 256)) block=(256)
// One thread per element, tanh(u) as 1 - 2 / (exp(2u) + 1) with the fast __expf and __fdividef
// (saturates to +-1 correctly when exp overflows or underflows).
extern "C" __global__ void bias_gelu_fast_tanh(const float* x, const float* bias, float* y, int rows, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * cols) return;
    float v = x[i] + bias[i % cols];
    float u = 0.7978845608028654f * (v + 0.044715f * v * v * v);
    float t = 1.0f - 2.0f / (__expf(2.0f * u) + 1.0f);
    y[i] = 0.5f * v * (1.0f + t);
}
