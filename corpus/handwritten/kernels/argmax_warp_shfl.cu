// Row argmax, one warp per row: (value, index) pairs merged by shuffles in a
// device helper that breaks ties towards the smaller index.
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ void keep_better(float& v, int& i, float ov, int oi)
{
    if (ov > v || (ov == v && oi < i)) { v = ov; i = oi; }
}

extern "C" __global__ void argmax_warp(const float* __restrict__ x, int* __restrict__ idx, int rows, int cols)
{
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows) return;
    const float* in = x + (size_t)row * cols;

    float best = -__int_as_float(0x7f800000);
    int bi = 0x7fffffff;
    for (int c = lane; c < cols; c += 32)
        keep_better(best, bi, in[c], c);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const float ov = __shfl_down_sync(FULL_MASK, best, off);
        const int oi = __shfl_down_sync(FULL_MASK, bi, off);
        keep_better(best, bi, ov, oi);
    }
    if (lane == 0) idx[row] = bi;
}
