// params: kind=last_block blocks=1024 block_x=256
// One launch in the threadFenceReduction style: each block stores its max into a static __device__ array, and the last block to finish (a ticket counter) reduces the partials into out[0] and resets the counter; expected good (one DRAM-bound launch, no scratch allocation).
#include <algorithm>
#include <cuda_runtime.h>

#define THREADS 256
#define MAX_BLOCKS 1024

static __device__ float g_partial[MAX_BLOCKS];
static __device__ unsigned int g_ticket = 0;

// Max over the block (all values >= 0); the result is valid in thread 0.
__device__ __forceinline__ float block_max(float v)
{
    __shared__ float warps[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    v = 0.0f;
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? warps[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    }
    return v;
}

__global__ void amax_last_block(int n, const float* __restrict__ x, float* __restrict__ out)
{
    __shared__ bool is_last;
    float m = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        m = fmaxf(m, fabsf(x[i]));
    m = block_max(m);
    if (threadIdx.x == 0) {
        g_partial[blockIdx.x] = m;
        __threadfence();                                   // the partial is visible before the ticket
        unsigned int ticket = atomicAdd(&g_ticket, 1u);
        is_last = (ticket == gridDim.x - 1);
    }
    __syncthreads();
    if (is_last) {
        __threadfence();
        volatile const float* part = g_partial;
        float v = 0.0f;
        for (int i = threadIdx.x; i < (int)gridDim.x; i += blockDim.x) v = fmaxf(v, part[i]);
        v = block_max(v);
        if (threadIdx.x == 0) {
            out[0] = v;
            g_ticket = 0;                                  // ready for the next call
        }
    }
}

extern "C" void amax(int n, const float* x, float* out)
{
    int blocks = std::max(1, std::min((n + THREADS - 1) / THREADS, MAX_BLOCKS));
    amax_last_block<<<blocks, THREADS>>>(n, x, out);
}
