// GELU with float4 loads and stores and the math in a __device__ helper.
// The first (n % 4) threads of the grid also finish the scalar tail.
__device__ __forceinline__ float gelu_tanh(float v)
{
    const float k0 = 0.7978845608028654f;
    const float k1 = 0.044715f;
    return 0.5f * v * (1.0f + tanhf(k0 * (v + k1 * v * v * v)));
}

extern "C" __global__ void gelu_vec4(const float* __restrict__ x, float* __restrict__ y, int n)
{
    const int n4 = n >> 2;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = reinterpret_cast<const float4*>(x)[i];
        v.x = gelu_tanh(v.x);
        v.y = gelu_tanh(v.y);
        v.z = gelu_tanh(v.z);
        v.w = gelu_tanh(v.w);
        reinterpret_cast<float4*>(y)[i] = v;
    }
    if (i < (n & 3)) {
        const int t = (n4 << 2) + i;
        y[t] = gelu_tanh(x[t]);
    }
}
