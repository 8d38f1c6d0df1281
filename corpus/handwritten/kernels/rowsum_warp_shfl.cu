// Row sums, one warp per row, butterfly shuffle reduction in a device helper.
#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(FULL_MASK, v, offset);
    return v;
}

extern "C" __global__ void rowsum_warp(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    const int lane = threadIdx.x & (WARP_SIZE - 1);
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / WARP_SIZE;
    if (row >= rows) return;  // the whole warp leaves together
    const float* in = x + (size_t)row * cols;

    float acc = 0.0f;
    for (int c = lane; c < cols; c += WARP_SIZE)
        acc += in[c];
    acc = warp_sum(acc);
    if (lane == 0)
        y[row] = acc;
}
