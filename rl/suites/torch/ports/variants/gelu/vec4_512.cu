// params: kind=vec4 block_x=512
// launch: grid=(cdiv(n, 2048)) block=(512)
// float4 loads and stores with 512-thread blocks.
__device__ __forceinline__ float gelu_f(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)); }

extern "C" __global__ void gelu_vec4_512(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * i + 3 < n) {
        float4 v = reinterpret_cast<const float4*>(x)[i];
        v.x = gelu_f(v.x); v.y = gelu_f(v.y); v.z = gelu_f(v.z); v.w = gelu_f(v.w);
        reinterpret_cast<float4*>(y)[i] = v;
    } else {
        for (int j = 4 * i; j < n; ++j) y[j] = gelu_f(x[j]);
    }
}
