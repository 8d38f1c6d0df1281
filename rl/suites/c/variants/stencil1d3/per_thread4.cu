// params: kind=per_thread4 vec=4 block_x=256
// launch: grid=(cdiv(cdiv(n, 4), 256)) block=(256)
// Four outputs per thread from one float4 and its two neighbours (when n % 4 == 0; scalar otherwise).
extern "C" __global__ void stencil1d3_per_thread4(int n, const float* x, float* y)
{
    int q = blockIdx.x * blockDim.x + threadIdx.x;
    int i0 = 4 * q;
    if (i0 >= n) return;
    if ((n & 3) == 0) {
        float4 v = reinterpret_cast<const float4*>(x)[q];
        float l = i0 > 0 ? x[i0 - 1] : 0.0f;
        float r = i0 + 4 < n ? x[i0 + 4] : 0.0f;
        float4 o;
        o.x = 0.25f * l + 0.5f * v.x + 0.25f * v.y;
        o.y = 0.25f * v.x + 0.5f * v.y + 0.25f * v.z;
        o.z = 0.25f * v.y + 0.5f * v.z + 0.25f * v.w;
        o.w = 0.25f * v.z + 0.5f * v.w + 0.25f * r;
        if (i0 == 0) o.x = v.x;
        if (i0 + 4 == n) o.w = v.w;
        reinterpret_cast<float4*>(y)[q] = o;
        return;
    }
    for (int i = i0; i < i0 + 4 && i < n; ++i)
        y[i] = (i == 0 || i == n - 1) ? x[i] : 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];
}
