// params: kind=warp_per_output block_x=256
// launch: grid=(cdiv(tokens * inter, 8)) block=(256)
// One warp per output: lanes stride along k (coalesced reads of the x row and both weight rows),
// then shuffle reductions. No reuse across outputs: every output re-reads a whole x row and two
// weight rows from L2/DRAM, so it loses to the tiled kernels.
extern "C" __global__ void swiglu_warp_dot(const float* x, const float* wg, const float* wu, float* y,
                                        int tokens, int hidden, int inter)
{
    size_t o = (size_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (o >= (size_t)tokens * inter) return;
    int t = (int)(o / inter), j = (int)(o % inter);
    const float* xr = x + (size_t)t * hidden;
    const float* gr = wg + (size_t)j * hidden;
    const float* ur = wu + (size_t)j * hidden;
    float g = 0.0f, u = 0.0f;
    for (int k = lane; k < hidden; k += 32) {
        float xv = xr[k];
        g += xv * gr[k];
        u += xv * ur[k];
    }
    for (int s = 16; s > 0; s >>= 1) {
        g += __shfl_xor_sync(0xffffffffu, g, s);
        u += __shfl_xor_sync(0xffffffffu, u, s);
    }
    if (lane == 0) y[o] = g / (1.0f + expf(-g)) * u;
}
