// Dot product: grid-stride accumulation with fmaf, warp shuffles, a shared
// array of per-warp sums, one atomicAdd per block.
__device__ __forceinline__ float warp_reduce(float v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

extern "C" __global__ void dot_shfl(const float* __restrict__ x, const float* __restrict__ y,
                                    float* __restrict__ out, int n)
{
    __shared__ float warp_part[32];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc = fmaf(x[i], y[i], acc);

    acc = warp_reduce(acc);
    const int lane = threadIdx.x & 31;
    const int wid = threadIdx.x >> 5;
    if (lane == 0) warp_part[wid] = acc;
    __syncthreads();
    if (wid == 0) {
        acc = (lane < (int)(blockDim.x >> 5)) ? warp_part[lane] : 0.0f;
        acc = warp_reduce(acc);
        if (lane == 0) atomicAdd(out, acc);
    }
}
