// params: kind=warp_per_row online=1 vec=1 block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row, online softmax: max and rescaled sum in one pass, so the row is read twice.
extern "C" __global__ void softmax_warp_online(const float* x, float* y, int rows, int cols)
{
    const float NEG_INF = -__int_as_float(0x7f800000);
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float mx = NEG_INF, sum = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = xr[c];
        if (v > mx) { sum *= expf(mx - v); mx = v; }
        sum += expf(v - mx);
    }
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, mx, o);
        float s2 = __shfl_xor_sync(0xffffffffu, sum, o);
        float m = fmaxf(mx, m2);
        float a = (mx == NEG_INF) ? 0.0f : sum * expf(mx - m);
        float b = (m2 == NEG_INF) ? 0.0f : s2 * expf(m2 - m);
        sum = a + b;
        mx = m;
    }
    float inv = 1.0f / sum;
    for (int c = lane; c < cols; c += 32) yr[c] = expf(xr[c] - mx) * inv;
}
