// params: kind=warp_per_row online=0 block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row, three coalesced passes: max, sum of exponentials, scaled write.
extern "C" __global__ void softmax_rows_warp_per_row(int rows, int cols, const float* x, float* y)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float mx = -__int_as_float(0x7f800000);
    for (int c = lane; c < cols; c += 32) mx = fmaxf(mx, xr[c]);
    for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    float sum = 0.0f;
    for (int c = lane; c < cols; c += 32) sum += expf(xr[c] - mx);
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    float inv = 1.0f / sum;
    for (int c = lane; c < cols; c += 32) yr[c] = expf(xr[c] - mx) * inv;
}
