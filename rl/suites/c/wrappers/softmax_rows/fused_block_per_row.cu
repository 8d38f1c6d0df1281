// params: kind=fused_block_per_row block_x=256 cache=16
// One fused kernel, a block per row: the row is held in registers (up to 16 values per thread, cols <= 4096; longer rows re-read global memory), with block reductions for the max and the sum, then one write; expected good (x read once, y written once, one launch).
#include <algorithm>
#include <cuda_runtime.h>
#include <math.h>

#define THREADS 256
// register cache: rows up to 4096 columns
#define PER_THREAD 16

__device__ __forceinline__ float block_reduce_max(float v, float* sh)
{
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    float t = sh[0];
    for (int w = 1; w < THREADS / 32; ++w) t = fmaxf(t, sh[w]);
    __syncthreads();                                   // sh is reused by the next reduction
    return t;
}

__device__ __forceinline__ float block_reduce_sum(float v, float* sh)
{
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    float t = 0.0f;
    for (int w = 0; w < THREADS / 32; ++w) t += sh[w];
    __syncthreads();
    return t;
}

__global__ void __launch_bounds__(THREADS)
softmax_fused(int rows, int cols, const float* __restrict__ x, float* __restrict__ y)
{
    __shared__ float sh[THREADS / 32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    if (cols <= THREADS * PER_THREAD) {
        float v[PER_THREAD];
        float m = -INFINITY;
#pragma unroll
        for (int i = 0; i < PER_THREAD; ++i) {
            int c = threadIdx.x + i * THREADS;
            v[i] = c < cols ? xr[c] : -INFINITY;
            m = fmaxf(m, v[i]);
        }
        m = block_reduce_max(m, sh);
        float s = 0.0f;
#pragma unroll
        for (int i = 0; i < PER_THREAD; ++i) {
            int c = threadIdx.x + i * THREADS;
            v[i] = c < cols ? expf(v[i] - m) : 0.0f;
            s += v[i];
        }
        s = block_reduce_sum(s, sh);
        float inv = 1.0f / s;
#pragma unroll
        for (int i = 0; i < PER_THREAD; ++i) {
            int c = threadIdx.x + i * THREADS;
            if (c < cols) yr[c] = v[i] * inv;
        }
    } else {                                           // long rows: three passes over global memory
        float m = -INFINITY;
        for (int c = threadIdx.x; c < cols; c += THREADS) m = fmaxf(m, xr[c]);
        m = block_reduce_max(m, sh);
        float s = 0.0f;
        for (int c = threadIdx.x; c < cols; c += THREADS) s += expf(xr[c] - m);
        s = block_reduce_sum(s, sh);
        float inv = 1.0f / s;
        for (int c = threadIdx.x; c < cols; c += THREADS) yr[c] = expf(xr[c] - m) * inv;
    }
}

extern "C" void softmax_rows(int rows, int cols, const float* x, float* y)
{
    softmax_fused<<<rows, THREADS>>>(rows, cols, x, y);
}
