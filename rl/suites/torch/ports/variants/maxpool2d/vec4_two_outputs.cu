// params: kind=elementwise vec=4 block_x=256
// launch: grid=(cdiv(planes * (h / 2) * (w / 2), 512)) block=(256)
// Two adjacent outputs per thread: two float4 loads (one per window row) and one float2 store
// (w % 4 == 0); otherwise the same threads fall back to a scalar grid-stride loop.
extern "C" __global__ void maxpool2d_vec4_two_outputs(const float* x, float* y, int planes, int h, int w)
{
    int oh = h / 2, ow = w / 2;
    size_t n = (size_t)planes * oh * ow;
    size_t nv = (w & 3) ? 0 : (n >> 1);        // output pairs (ow is even when w % 4 == 0)
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nv) {
        int half = ow >> 1;
        int ox = 2 * (int)(i % half);
        size_t t = i / half;
        int oy = (int)(t % oh);
        size_t p = t / oh;
        const float* xp = x + (p * h + 2 * oy) * (size_t)w + 2 * ox;
        float4 a = *reinterpret_cast<const float4*>(xp);
        float4 b = *reinterpret_cast<const float4*>(xp + w);
        float2 o;
        o.x = fmaxf(fmaxf(a.x, a.y), fmaxf(b.x, b.y));
        o.y = fmaxf(fmaxf(a.z, a.w), fmaxf(b.z, b.w));
        reinterpret_cast<float2*>(y)[i] = o;
    }
    for (size_t j = 2 * nv + i; j < n; j += (size_t)gridDim.x * blockDim.x) {
        int ox = (int)(j % ow);
        size_t t = j / ow;
        int oy = (int)(t % oh);
        size_t p = t / oh;
        const float* xp = x + (p * h + 2 * oy) * (size_t)w + 2 * ox;
        y[j] = fmaxf(fmaxf(xp[0], xp[1]), fmaxf(xp[w], xp[w + 1]));
    }
}
