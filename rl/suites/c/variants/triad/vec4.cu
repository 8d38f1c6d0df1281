// params: kind=vec4 block_x=256
// launch: grid=(cdiv(cdiv(n, 4), 256)) block=(256)
// Four elements per thread through 16-byte loads; thread 0 also does the tail when n % 4 != 0.
extern "C" __global__ void triad_vec4(int n, float s, const float* b, const float* c, float* a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n4 = n / 4;
    if (i < n4) {
        float4 vb = reinterpret_cast<const float4*>(b)[i];
        float4 vc = reinterpret_cast<const float4*>(c)[i];
        float4 va;
        va.x = vb.x + s * vc.x;
        va.y = vb.y + s * vc.y;
        va.z = vb.z + s * vc.z;
        va.w = vb.w + s * vc.w;
        reinterpret_cast<float4*>(a)[i] = va;
    }
    if (i == 0)
        for (int t = n4 * 4; t < n; ++t)
            a[t] = b[t] + s * c[t];
}
