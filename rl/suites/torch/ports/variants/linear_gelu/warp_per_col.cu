// params: kind=warp_per_col rows=16 vec=1 block_x=256
// launch: grid=(cdiv(out_features, 8)) block=(256)
// One warp per output feature: the lanes read W's row once, coalesced, and keep one partial sum per
// batch row (16 at a time) in registers; shuffle reductions, then bias + GELU.
extern "C" __global__ void linear_gelu_warp_per_col(const float* x, const float* weight, const float* bias, float* y,
                                                    int batch, int in_features, int out_features)
{
    int col = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (col >= out_features) return;
    const float* wr = weight + (size_t)col * in_features;
    float bcol = bias[col];
    for (int r0 = 0; r0 < batch; r0 += 16) {
        int rows = min(16, batch - r0);
        float acc[16];
#pragma unroll
        for (int r = 0; r < 16; ++r) acc[r] = 0.0f;
        for (int p = lane; p < in_features; p += 32) {
            float wv = wr[p];
#pragma unroll
            for (int r = 0; r < 16; ++r)
                if (r < rows) acc[r] += wv * x[(size_t)(r0 + r) * in_features + p];
        }
#pragma unroll
        for (int r = 0; r < 16; ++r) {
            float v = acc[r];
            for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
            if (lane == 0 && r < rows) {
                v += bcol;
                y[(size_t)(r0 + r) * out_features + col] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
            }
        }
    }
}
