// params: kind=warp_per_row vec=1 block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row: 32 columns at a time, a Kogge-Stone __shfl_up_sync scan plus a running carry.
extern "C" __global__ void cumsum_warp_scan(const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float carry = 0.0f;
    for (int c0 = 0; c0 < cols; c0 += 32) {
        int c = c0 + lane;
        float v = c < cols ? xr[c] : 0.0f;
        for (int o = 1; o < 32; o <<= 1) {
            float t = __shfl_up_sync(0xffffffffu, v, o);
            if (lane >= o) v += t;
        }
        if (c < cols) yr[c] = carry + v;
        carry += __shfl_sync(0xffffffffu, v, 31);
    }
}
