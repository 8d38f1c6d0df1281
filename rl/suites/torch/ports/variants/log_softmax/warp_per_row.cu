// params: kind=warp_per_row online=0 vec=1 block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row: too few warps for 32-512 rows of 32000 (a poor fit for long rows).
extern "C" __global__ void log_softmax_warp_per_row(const float* x, float* y, int rows, int vocab)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * vocab;
    float* yr = y + (size_t)r * vocab;
    float mx = -__int_as_float(0x7f800000);
    for (int c = lane; c < vocab; c += 32) mx = fmaxf(mx, xr[c]);
    for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    float sum = 0.0f;
    for (int c = lane; c < vocab; c += 32) sum += expf(xr[c] - mx);
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    float lse = mx + logf(sum);
    for (int c = lane; c < vocab; c += 32) yr[c] = xr[c] - lse;
}
