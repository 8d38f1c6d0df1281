// params: kind=block_atomic vec=4 blocks=1056 block_x=256
// out[0] zeroed with cudaMemset, then one grid-stride kernel with float4 loads, a warp-shuffle and block max, and one integer atomicMax on the bits of |x| per block; expected good (one DRAM-bound launch with 16-byte loads).
#include <algorithm>
#include <cuda_runtime.h>

#define THREADS 256
#define MAX_BLOCKS 1056

__global__ void amax_vec4_atomic(int n, const float* __restrict__ x, float* __restrict__ out)
{
    __shared__ float warps[32];
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    int n4 = n >> 2;
    const float4* x4 = reinterpret_cast<const float4*>(x);   // cudaMalloc'ed: 256-byte aligned
    float m = 0.0f;
    for (int i = tid; i < n4; i += stride) {
        float4 v = x4[i];
        m = fmaxf(m, fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w))));
    }
    for (int i = (n4 << 2) + tid; i < n; i += stride)         // the last n % 4 elements
        m = fmaxf(m, fabsf(x[i]));
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warps[warp] = m;
    __syncthreads();
    if (warp == 0) {
        m = lane < (int)(blockDim.x >> 5) ? warps[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        // a non-negative float orders like its bit pattern read as an int
        if (lane == 0) atomicMax(reinterpret_cast<int*>(out), __float_as_int(m));
    }
}

extern "C" void amax(int n, const float* x, float* out)
{
    int blocks = std::max(1, std::min((n / 4 + THREADS - 1) / THREADS, MAX_BLOCKS));
    cudaMemset(out, 0, sizeof(float));             // +0.0f: the max starts at 0 as in the C code
    amax_vec4_atomic<<<blocks, THREADS>>>(n, x, out);
}
