// y = A x, one warp per row: lanes stride along the row (coalesced), x read
// through __ldg, shuffle reduction.
extern "C" __global__ void gemv_warp_per_row(const float* __restrict__ A, const float* __restrict__ x,
                                             float* __restrict__ y, int rows, int cols)
{
    const int lane = threadIdx.x % 32;
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= rows) return;
    const float* a = A + (size_t)row * cols;
    float acc = 0.0f;
    for (int c = lane; c < cols; c += 32)
        acc += a[c] * __ldg(x + c);
    for (int off = 16; off > 0; off /= 2)
        acc += __shfl_down_sync(0xffffffffu, acc, off);
    if (lane == 0) y[row] = acc;
}
