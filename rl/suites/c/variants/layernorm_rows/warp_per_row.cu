// params: kind=warp_per_row block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row: coalesced passes, shuffle reductions for the mean and the variance.
extern "C" __global__ void layernorm_rows_warp_per_row(int rows, int cols, float eps, const float* x,
                                                       const float* gamma, const float* beta, float* y)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += xr[c];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    float mean = s / (float)cols;
    float v = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float d = xr[c] - mean;
        v += d * d;
    }
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    float inv = 1.0f / sqrtf(v / (float)cols + eps);
    for (int c = lane; c < cols; c += 32)
        yr[c] = (xr[c] - mean) * inv * gamma[c] + beta[c];
}
