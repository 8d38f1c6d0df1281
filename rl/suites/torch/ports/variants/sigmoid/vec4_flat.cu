// params: kind=vec4 block_x=256
// launch: grid=(cdiv(rows * cols, 1024)) block=(256)
// float4 over the flat array (rows do not matter to an elementwise op, so the odd row length does
// not break the 16-byte alignment); a scalar tail when rows * cols % 4 != 0.
__device__ __forceinline__ float sig(float v) { return 1.0f / (1.0f + expf(-v)); }
extern "C" __global__ void sigmoid_vec4_flat(const float* x, float* y, int rows, int cols)
{
    int n = rows * cols;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * i + 3 < n) {
        float4 v = reinterpret_cast<const float4*>(x)[i];
        v.x = sig(v.x); v.y = sig(v.y); v.z = sig(v.z); v.w = sig(v.w);
        reinterpret_cast<float4*>(y)[i] = v;
    } else {
        for (int j = 4 * i; j < n; ++j) y[j] = sig(x[j]);
    }
}
