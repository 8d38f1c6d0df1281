// params: kind=warp_per_plane vec=1 block_x=256
// launch: grid=(cdiv(planes, 8)) block=(256)
// One warp per plane: lanes stride along it (coalesced), then a __shfl_xor_sync butterfly.
extern "C" __global__ void global_avgpool_warp_per_plane(const float* x, float* y, int planes, int hw)
{
    int p = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (p >= planes) return;
    const float* xp = x + (size_t)p * hw;
    float s = 0.0f;
    for (int i = lane; i < hw; i += 32) s += xp[i];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) y[p] = s / hw;
}
