// params: kind=warp_per_row vec=1 block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row: lanes stride along it (coalesced), then a __shfl_xor_sync butterfly.
extern "C" __global__ void sum_rows_warp_per_row(const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float v = 0.0f;
    for (int c = lane; c < cols; c += 32) v = v + xr[c];
    for (int o = 16; o > 0; o >>= 1) v = v + __shfl_xor_sync(0xffffffffu, v, o);
    if (lane == 0) y[r] = v;
}
