// params: kind=warp_per_row vec=1 block_x=256
// launch: grid=(cdiv(tokens, 8)) block=(256)
// One warp per row, two-pass statistics (mean, then sum of squared deviations) with shuffles.
extern "C" __global__ void layernorm_warp_per_row(const float* x, const float* weight, const float* bias, float* y,
                                                  int tokens, int hidden)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= tokens) return;
    const float* xr = x + (size_t)r * hidden;
    float* yr = y + (size_t)r * hidden;
    float sum = 0.0f;
    for (int c = lane; c < hidden; c += 32) sum += xr[c];
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    float mean = sum / hidden;
    float var = 0.0f;
    for (int c = lane; c < hidden; c += 32) { float d = xr[c] - mean; var += d * d; }
    for (int o = 16; o > 0; o >>= 1) var += __shfl_xor_sync(0xffffffffu, var, o);
    float rstd = rsqrtf(var / hidden + 1e-5f);
    for (int c = lane; c < hidden; c += 32) yr[c] = (xr[c] - mean) * rstd * weight[c] + bias[c];
}
