// params: kind=warp_per_row online=1 block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row; the max and the sum in one pass (the sum rescaled whenever the max grows),
// so the row is read twice instead of three times.
extern "C" __global__ void softmax_rows_warp_online(int rows, int cols, const float* x, float* y)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float mx = -__int_as_float(0x7f800000), sum = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = xr[c];
        if (v > mx) {
            sum = sum * expf(mx - v);
            mx = v;
        }
        sum += expf(v - mx);
    }
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, mx, o);
        float s2 = __shfl_xor_sync(0xffffffffu, sum, o);
        float m = fmaxf(mx, m2);
        sum = (mx == -__int_as_float(0x7f800000) ? 0.0f : sum * expf(mx - m)) + (m2 == -__int_as_float(0x7f800000) ? 0.0f : s2 * expf(m2 - m));
        mx = m;
    }
    float inv = 1.0f / sum;
    for (int c = lane; c < cols; c += 32) yr[c] = expf(xr[c] - mx) * inv;
}
