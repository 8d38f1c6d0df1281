// params: kind=warp_per_col rows=16 vec=4 block_x=256
// launch: grid=(cdiv(out_features, 8)) block=(256)
// One warp per output feature with float4 loads of W and x (when in_features % 4 == 0; scalar
// otherwise); 16 batch rows' partial sums in registers, shuffle reductions, bias + GELU.
extern "C" __global__ void linear_gelu_warp_per_col_vec4(const float* x, const float* weight, const float* bias, float* y,
                                                         int batch, int in_features, int out_features)
{
    int col = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (col >= out_features) return;
    const float* wr = weight + (size_t)col * in_features;
    float bcol = bias[col];
    bool vec = (in_features & 3) == 0;
    for (int r0 = 0; r0 < batch; r0 += 16) {
        int rows = min(16, batch - r0);
        float acc[16];
#pragma unroll
        for (int r = 0; r < 16; ++r) acc[r] = 0.0f;
        if (vec) {
            int n4 = in_features >> 2;
            for (int p = lane; p < n4; p += 32) {
                float4 wv = reinterpret_cast<const float4*>(wr)[p];
#pragma unroll
                for (int r = 0; r < 16; ++r) {
                    if (r < rows) {
                        float4 xv = reinterpret_cast<const float4*>(x + (size_t)(r0 + r) * in_features)[p];
                        acc[r] += wv.x * xv.x + wv.y * xv.y + wv.z * xv.z + wv.w * xv.w;
                    }
                }
            }
        } else {
            for (int p = lane; p < in_features; p += 32) {
                float wv = wr[p];
#pragma unroll
                for (int r = 0; r < 16; ++r)
                    if (r < rows) acc[r] += wv * x[(size_t)(r0 + r) * in_features + p];
            }
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
