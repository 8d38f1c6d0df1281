// params: kind=two_pass blocks=1056 block_x=256 final_block=1024
// Two passes: a grid-stride kernel writes each block's max |x| into cudaMalloc'ed scratch, a one-block kernel takes the max of the partials into out[0]; expected good (DRAM-bound first pass, no atomics).
#include <algorithm>
#include <cuda_runtime.h>

#define THREADS 256
#define MAX_BLOCKS 1056
#define FINAL_THREADS 1024

__device__ __forceinline__ float warp_max(float v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

// Max over the block (all values >= 0); the result is valid in thread 0.
__device__ __forceinline__ float block_max(float v)
{
    __shared__ float warps[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_max(v);
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    v = 0.0f;
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? warps[lane] : 0.0f;
        v = warp_max(v);
    }
    return v;
}

__global__ void amax_partial(int n, const float* __restrict__ x, float* __restrict__ part)
{
    float m = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        m = fmaxf(m, fabsf(x[i]));
    m = block_max(m);
    if (threadIdx.x == 0) part[blockIdx.x] = m;
}

__global__ void amax_final(int count, const float* __restrict__ part, float* __restrict__ out)
{
    float m = 0.0f;
    for (int i = threadIdx.x; i < count; i += blockDim.x) m = fmaxf(m, part[i]);
    m = block_max(m);
    if (threadIdx.x == 0) out[0] = m;
}

extern "C" void amax(int n, const float* x, float* out)
{
    int blocks = std::max(1, std::min((n + THREADS - 1) / THREADS, MAX_BLOCKS));
    float* part;
    cudaMalloc(&part, MAX_BLOCKS * sizeof(float));
    amax_partial<<<blocks, THREADS>>>(n, x, part);
    amax_final<<<1, FINAL_THREADS>>>(blocks, part, out);
    cudaFree(part);
}
