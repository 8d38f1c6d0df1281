// params: kind=warp_per_row vec=1 block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row: each lane keeps its first maximum, then a shuffle butterfly on (value, index)
// with ties going to the smaller index (torch's first occurrence).
extern "C" __global__ void argmax_rows_warp_per_row(const float* x, long long* y, int rows, int cols)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float v = __int_as_float(0xff800000);
    int i = 0x7fffffff;
    for (int c = lane; c < cols; c += 32) {
        float q = xr[c];
        if (q > v) { v = q; i = c; }
    }
    for (int o = 16; o > 0; o >>= 1) {
        float ov = __shfl_xor_sync(0xffffffffu, v, o);
        int oi = __shfl_xor_sync(0xffffffffu, i, o);
        if (ov > v || (ov == v && oi < i)) { v = ov; i = oi; }
    }
    if (lane == 0) y[r] = (long long)i;
}
