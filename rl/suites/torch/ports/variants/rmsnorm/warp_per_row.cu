// params: kind=warp_per_row vec=1 block_x=256
// launch: grid=(cdiv(tokens, 8)) block=(256)
// One warp per row, coalesced, shuffle reduction of the sum of squares.
extern "C" __global__ void rmsnorm_warp_per_row(const float* x, const float* weight, float* y, int tokens, int hidden)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= tokens) return;
    const float* xr = x + (size_t)r * hidden;
    float* yr = y + (size_t)r * hidden;
    float ss = 0.0f;
    for (int c = lane; c < hidden; c += 32) { float v = xr[c]; ss += v * v; }
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    float rms = rsqrtf(ss / hidden + 1e-6f);
    for (int c = lane; c < hidden; c += 32) yr[c] = xr[c] * rms * weight[c];
}
