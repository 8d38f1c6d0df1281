// params: kind=vec4 block_x=512
// launch: grid=(cdiv(n, 2048)) block=(512)
// float4 loads and stores with 512-thread blocks.
__device__ __forceinline__ float tanh_f(float v) { return tanhf(v); }

extern "C" __global__ void tanh_vec4_512(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * i + 3 < n) {
        float4 v = reinterpret_cast<const float4*>(x)[i];
        v.x = tanh_f(v.x); v.y = tanh_f(v.y); v.z = tanh_f(v.z); v.w = tanh_f(v.w);
        reinterpret_cast<float4*>(y)[i] = v;
    } else {
        for (int j = 4 * i; j < n; ++j) y[j] = tanh_f(x[j]);
    }
}
