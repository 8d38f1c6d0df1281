// params: kind=warp_per_row vec=1 block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row, coalesced, shuffle reduction of the sum of squares.
extern "C" __global__ void l2_normalize_rows_warp_per_row(const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float ss = 0.0f;
    for (int c = lane; c < cols; c += 32) { float v = xr[c]; ss += v * v; }
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    float inv = 1.0f / fmaxf(sqrtf(ss), 1e-12f);
    for (int c = lane; c < cols; c += 32) yr[c] = xr[c] * inv;
}
