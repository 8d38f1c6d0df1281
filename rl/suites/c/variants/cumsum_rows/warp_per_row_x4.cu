// params: kind=warp_per_row per_lane=4 block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row, 128 columns at a time: each lane scans 4 neighbouring values sequentially,
// then the lanes' totals are scanned with shuffles.
extern "C" __global__ void cumsum_rows_warp_per_row_x4(int rows, int cols, const float* x, float* y)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float carry = 0.0f;
    for (int c0 = 0; c0 < cols; c0 += 128) {
        int c = c0 + 4 * lane;
        float v[4];
        float run = 0.0f;
        for (int t = 0; t < 4; ++t) {
            run += c + t < cols ? xr[c + t] : 0.0f;
            v[t] = run;
        }
        float tot = run;
        for (int o = 1; o < 32; o <<= 1) {
            float u = __shfl_up_sync(0xffffffffu, tot, o);
            if (lane >= o) tot += u;
        }
        float before = carry + tot - run;
        for (int t = 0; t < 4; ++t)
            if (c + t < cols) yr[c + t] = before + v[t];
        carry += __shfl_sync(0xffffffffu, tot, 31);
    }
}
