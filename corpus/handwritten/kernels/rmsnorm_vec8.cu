// RMSNorm, one block per row; each thread keeps ITERS chunks of 8 halves (one
// int4 load each) in registers, so the row is read from memory once.
// Requires cols % 8 == 0 and cols <= BLOCK * 8 * ITERS.
#include <cuda_fp16.h>

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

template <int BLOCK, int ITERS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_vec8(const half* __restrict__ x, const half* __restrict__ w, half* __restrict__ y,
             int rows, int cols, float eps)
{
    __shared__ float red[BLOCK / 32];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const int4* xr = reinterpret_cast<const int4*>(x + (size_t)row * cols);
    int4* yr = reinterpret_cast<int4*>(y + (size_t)row * cols);
    const int4* w4 = reinterpret_cast<const int4*>(w);
    const int nvec = cols / 8;

    int4 cache[ITERS];
    float ss = 0.0f;
#pragma unroll
    for (int k = 0; k < ITERS; ++k) {
        const int v = k * BLOCK + threadIdx.x;
        if (v < nvec) {
            cache[k] = xr[v];
            const half2* h = reinterpret_cast<const half2*>(&cache[k]);
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const float2 f = __half22float2(h[j]);
                ss += f.x * f.x + f.y * f.y;
            }
        }
    }
    ss = warp_sum(ss);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = ss;
    __syncthreads();
    float total = 0.0f;
#pragma unroll
    for (int i = 0; i < BLOCK / 32; ++i) total += red[i];  // broadcast reads
    const float inv = rsqrtf(total / cols + eps);

#pragma unroll
    for (int k = 0; k < ITERS; ++k) {
        const int v = k * BLOCK + threadIdx.x;
        if (v < nvec) {
            const int4 wv = __ldg(w4 + v);
            const half2* h = reinterpret_cast<const half2*>(&cache[k]);
            const half2* g = reinterpret_cast<const half2*>(&wv);
            int4 out;
            half2* o = reinterpret_cast<half2*>(&out);
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const float2 f = __half22float2(h[j]);
                const float2 gg = __half22float2(g[j]);
                o[j] = __floats2half2_rn(f.x * inv * gg.x, f.y * inv * gg.y);
            }
            yr[v] = out;
        }
    }
}

template __global__ void rmsnorm_vec8<128, 1>(const half* __restrict__, const half* __restrict__, half* __restrict__, int, int, float);
template __global__ void rmsnorm_vec8<256, 1>(const half* __restrict__, const half* __restrict__, half* __restrict__, int, int, float);
template __global__ void rmsnorm_vec8<128, 4>(const half* __restrict__, const half* __restrict__, half* __restrict__, int, int, float);
template __global__ void rmsnorm_vec8<256, 2>(const half* __restrict__, const half* __restrict__, half* __restrict__, int, int, float);
