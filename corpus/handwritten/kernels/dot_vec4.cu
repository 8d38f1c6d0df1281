// Dot product, block size as a template parameter: float4 loads through __ldg,
// two independent accumulators, grid-stride loop over float4s, warp shuffles.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
dot_vec4(const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, int n)
{
    __shared__ float warp_sums[BLOCK / 32];
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const float4* y4 = reinterpret_cast<const float4*>(y);
    const int n4 = n >> 2;

    float a0 = 0.0f, a1 = 0.0f;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n4; i += gridDim.x * BLOCK) {
        const float4 a = __ldg(x4 + i);
        const float4 b = __ldg(y4 + i);
        a0 = fmaf(a.x, b.x, a0);
        a1 = fmaf(a.y, b.y, a1);
        a0 = fmaf(a.z, b.z, a0);
        a1 = fmaf(a.w, b.w, a1);
    }
    if (blockIdx.x == 0 && threadIdx.x < (n & 3)) {
        const int t = (n4 << 2) + threadIdx.x;
        a0 = fmaf(x[t], y[t], a0);
    }

    float acc = a0 + a1;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, off);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0.0f;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            acc += __shfl_down_sync(0xffffffffu, acc, off);
        if (threadIdx.x == 0) atomicAdd(out, acc);
    }
}

template __global__ void dot_vec4<256>(const float* __restrict__, const float* __restrict__, float* __restrict__, int);
template __global__ void dot_vec4<512>(const float* __restrict__, const float* __restrict__, float* __restrict__, int);
