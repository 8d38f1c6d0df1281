// RMSNorm, one warp per row, half2 loads/stores (cols must be even) and an
// xor-butterfly all-reduce so every lane gets the sum of squares.
#include <cuda_fp16.h>

__device__ __forceinline__ float warp_allreduce_sum(float v)
{
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, mask);
    return v;
}

extern "C" __global__ void rmsnorm_warp_h2(const half* __restrict__ x, const half* __restrict__ w,
                                           half* __restrict__ y, int rows, int cols, float eps)
{
    const int warps_per_block = blockDim.x >> 5;
    const int row = blockIdx.x * warps_per_block + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (row >= rows) return;

    const half2* x2 = reinterpret_cast<const half2*>(x + (size_t)row * cols);
    const half2* w2 = reinterpret_cast<const half2*>(w);
    half2* y2 = reinterpret_cast<half2*>(y + (size_t)row * cols);
    const int n2 = cols >> 1;

    float ss = 0.0f;
    for (int i = lane; i < n2; i += 32) {
        const float2 f = __half22float2(x2[i]);
        ss += f.x * f.x + f.y * f.y;
    }
    ss = warp_allreduce_sum(ss);
    const float inv = rsqrtf(ss / cols + eps);
    for (int i = lane; i < n2; i += 32) {
        const float2 f = __half22float2(x2[i]);
        const float2 g = __half22float2(w2[i]);
        y2[i] = __floats2half2_rn(f.x * inv * g.x, f.y * inv * g.y);
    }
}
