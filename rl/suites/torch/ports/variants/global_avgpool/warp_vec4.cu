// params: kind=warp_per_plane vec=4 block_x=256
// launch: grid=(cdiv(planes, 8)) block=(256)
// One warp per plane with float4 loads when hw % 4 == 0 (plane starts 16-byte aligned), scalar otherwise.
extern "C" __global__ void global_avgpool_warp_vec4(const float* x, float* y, int planes, int hw)
{
    int p = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (p >= planes) return;
    const float* xp = x + (size_t)p * hw;
    float s = 0.0f;
    if ((hw & 3) == 0) {
        const float4* x4 = reinterpret_cast<const float4*>(xp);
        for (int i = lane; i < hw / 4; i += 32) {
            float4 q = x4[i];
            s += (q.x + q.y) + (q.z + q.w);
        }
    } else {
        for (int i = lane; i < hw; i += 32) s += xp[i];
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) y[p] = s / hw;
}
