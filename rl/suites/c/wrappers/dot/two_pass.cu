// params: kind=two_pass blocks=1056 block_x=256 final_block=1024
// Two passes: a grid-stride kernel writes one double partial per block into cudaMalloc'ed scratch, then a one-block kernel sums the partials into out[0]; expected good (DRAM-bound pass plus a tiny second launch).
#include <algorithm>
#include <cuda_runtime.h>

#define THREADS 256
#define MAX_BLOCKS 1056
#define FINAL_THREADS 1024

__device__ __forceinline__ double warp_sum(double v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Sum over the block; the result is valid in thread 0.
__device__ __forceinline__ double block_sum(double v)
{
    __shared__ double warps[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    v = 0.0;
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? warps[lane] : 0.0;
        v = warp_sum(v);
    }
    return v;
}

__global__ void dot_partial(int n, const double* __restrict__ x, const double* __restrict__ y,
                            double* __restrict__ part)
{
    double v = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += x[i] * y[i];
    v = block_sum(v);
    if (threadIdx.x == 0) part[blockIdx.x] = v;
}

__global__ void dot_final(int m, const double* __restrict__ part, double* __restrict__ out)
{
    double v = 0.0;
    for (int i = threadIdx.x; i < m; i += blockDim.x) v += part[i];
    v = block_sum(v);
    if (threadIdx.x == 0) out[0] = v;
}

extern "C" void dot(int n, const double* x, const double* y, double* out)
{
    int blocks = std::max(1, std::min((n + THREADS - 1) / THREADS, MAX_BLOCKS));
    double* part;
    cudaMalloc(&part, MAX_BLOCKS * sizeof(double));
    dot_partial<<<blocks, THREADS>>>(n, x, y, part);
    dot_final<<<1, FINAL_THREADS>>>(blocks, part, out);
    cudaFree(part);
}
