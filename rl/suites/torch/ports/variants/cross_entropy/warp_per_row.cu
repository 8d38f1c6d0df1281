// params: kind=warp_per_row online=0 vec=1 block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row (two coalesced passes), lane 0 adds the row's term with atomicAdd; 32-512
// rows give only 4-64 blocks for 32000-wide rows.
extern "C" __global__ void cross_entropy_warp_per_row(const float* logits, const long long* targets, float* loss,
                                                      int rows, int classes)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = logits + (size_t)r * classes;
    float mx = -__int_as_float(0x7f800000);
    for (int c = lane; c < classes; c += 32) mx = fmaxf(mx, xr[c]);
    for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    float sum = 0.0f;
    for (int c = lane; c < classes; c += 32) sum += expf(xr[c] - mx);
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    if (lane == 0) {
        long long t = targets[r];
        float picked = (t >= 0 && t < classes) ? xr[t] : 0.0f;
        atomicAdd(loss, (mx + logf(sum) - picked) / rows);
    }
}
