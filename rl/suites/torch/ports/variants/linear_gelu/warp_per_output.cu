// params: kind=warp_per_output block_x=256
// launch: grid=(batch, cdiv(out_features, 8)) block=(256)
// One warp per output element: a coalesced dot product of a row of x and a row of W, shuffle
// reduction, bias + GELU. W is read once per batch row (the batch's blocks run side by side, so
// mostly from L2).
extern "C" __global__ void linear_gelu_warp_per_output(const float* x, const float* weight, const float* bias, float* y,
                                                       int batch, int in_features, int out_features)
{
    int row = blockIdx.x;
    int col = blockIdx.y * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= batch || col >= out_features) return;
    const float* xr = x + (size_t)row * in_features;
    const float* wr = weight + (size_t)col * in_features;
    float acc = 0.0f;
    for (int p = lane; p < in_features; p += 32) acc += xr[p] * wr[p];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) {
        float v = acc + bias[col];
        y[(size_t)row * out_features + col] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    }
}
