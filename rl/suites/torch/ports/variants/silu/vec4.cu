// params: kind=vec4 block_x=256
// launch: grid=(cdiv(n, 1024)) block=(256)
// float4 loads and stores: four elements per thread as one 16-byte access; a scalar tail when n % 4 != 0.
__device__ __forceinline__ float silu_f(float v) { return v / (1.0f + expf(-v)); }

extern "C" __global__ void silu_vec4(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * i + 3 < n) {
        float4 v = reinterpret_cast<const float4*>(x)[i];
        v.x = silu_f(v.x); v.y = silu_f(v.y); v.z = silu_f(v.z); v.w = silu_f(v.w);
        reinterpret_cast<float4*>(y)[i] = v;
    } else {
        for (int j = 4 * i; j < n; ++j) y[j] = silu_f(x[j]);
    }
}
