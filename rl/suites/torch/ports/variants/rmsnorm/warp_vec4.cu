// params: kind=warp_per_row vec=4 block_x=256
// launch: grid=(cdiv(tokens, 8)) block=(256)
// One warp per row with float4 loads and stores (scalar tail when hidden % 4 != 0).
extern "C" __global__ void rmsnorm_warp_vec4(const float* x, const float* weight, float* y, int tokens, int hidden)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= tokens) return;
    const float* xr = x + (size_t)r * hidden;
    float* yr = y + (size_t)r * hidden;
    const float4* xv = reinterpret_cast<const float4*>(xr);
    const float4* wv = reinterpret_cast<const float4*>(weight);
    float4* yv = reinterpret_cast<float4*>(yr);
    int nv = (hidden & 3) ? 0 : (hidden >> 2);
    float ss = 0.0f;
    for (int c = lane; c < nv; c += 32) {
        float4 v = xv[c];
        ss += (v.x * v.x + v.y * v.y) + (v.z * v.z + v.w * v.w);
    }
    for (int c = 4 * nv + lane; c < hidden; c += 32) { float v = xr[c]; ss += v * v; }
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    float rms = rsqrtf(ss / hidden + 1e-6f);
    for (int c = lane; c < nv; c += 32) {
        float4 v = xv[c], w = wv[c];
        v.x *= rms * w.x; v.y *= rms * w.y; v.z *= rms * w.z; v.w *= rms * w.w;
        yv[c] = v;
    }
    for (int c = 4 * nv + lane; c < hidden; c += 32) yr[c] = xr[c] * rms * weight[c];
}
