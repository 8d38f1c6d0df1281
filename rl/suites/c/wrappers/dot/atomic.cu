// params: kind=block_atomic blocks=1056 block_x=256
// One grid-stride kernel: each block reduces its products with warp shuffles and adds its sum to out[0] (zeroed by cudaMemset first) with one double atomicAdd; expected good (one DRAM-bound launch, ~1000 atomics).
#include <algorithm>
#include <cuda_runtime.h>

#define THREADS 256
#define MAX_BLOCKS 1056

__global__ void dot_block_atomic(int n, const double* __restrict__ x, const double* __restrict__ y,
                                 double* __restrict__ out)
{
    __shared__ double warps[32];
    double v = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += x[i] * y[i];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? warps[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        if (lane == 0) atomicAdd(out, v);
    }
}

extern "C" void dot(int n, const double* x, const double* y, double* out)
{
    int blocks = std::max(1, std::min((n + THREADS - 1) / THREADS, MAX_BLOCKS));
    cudaMemset(out, 0, sizeof(double));            // the sum accumulates into out[0]
    dot_block_atomic<<<blocks, THREADS>>>(n, x, y, out);
}
