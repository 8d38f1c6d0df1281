// params: kind=vec4 block_x=256
// launch: grid=(cdiv(n, 1024)) block=(256)
// float4 loads and stores: four elements per thread, 16-byte accesses (n is a multiple of 4 here).
extern "C" __global__ void relu_vec4(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * i + 3 < n) {
        float4 v = reinterpret_cast<const float4*>(x)[i];
        v.x = fmaxf(v.x, 0.0f); v.y = fmaxf(v.y, 0.0f); v.z = fmaxf(v.z, 0.0f); v.w = fmaxf(v.w, 0.0f);
        reinterpret_cast<float4*>(y)[i] = v;
    } else {
        for (int j = 4 * i; j < n; ++j) y[j] = fmaxf(x[j], 0.0f);
    }
}
