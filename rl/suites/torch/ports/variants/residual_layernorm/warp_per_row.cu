// params: kind=warp_per_row cache=0 vec=1 block_x=256
// launch: grid=(cdiv(tokens, 8)) block=(256)
// One warp per row, one pass for sum and sum of squares of x + residual, a second for the write.
extern "C" __global__ void residual_layernorm_warp_per_row(const float* x, const float* residual, const float* weight,
                                                           const float* bias, float* y, int tokens, int hidden)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= tokens) return;
    size_t base = (size_t)r * hidden;
    float s = 0.0f, q = 0.0f;
    for (int c = lane; c < hidden; c += 32) { float v = x[base + c] + residual[base + c]; s += v; q += v * v; }
    for (int o = 16; o > 0; o >>= 1) {
        s += __shfl_xor_sync(0xffffffffu, s, o);
        q += __shfl_xor_sync(0xffffffffu, q, o);
    }
    float mean = s / hidden;
    float rstd = rsqrtf(fmaxf(q / hidden - mean * mean, 0.0f) + 1e-5f);
    for (int c = lane; c < hidden; c += 32)
        y[base + c] = (x[base + c] + residual[base + c] - mean) * rstd * weight[c] + bias[c];
}
