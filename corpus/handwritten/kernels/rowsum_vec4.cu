// Row sums, one block per row, float4 loads (cols must be a multiple of 4 so
// each row starts 16-byte aligned), warp shuffles, then one warp combines the
// per-warp partials kept in dynamic shared memory (blockDim.x/32 floats).
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_reduce_sum(float v)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, off);
    return v;
}

extern "C" __global__ void __launch_bounds__(512)
rowsum_vec4(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    extern __shared__ float warp_sums[];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int nwarps = blockDim.x >> 5;

    const float* in = x + (size_t)row * cols;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    const int n4 = cols >> 2;
    float acc = 0.0f;
    for (int i = threadIdx.x; i < n4; i += blockDim.x) {
        const float4 v = in4[i];
        acc += (v.x + v.y) + (v.z + v.w);
    }
    for (int c = (n4 << 2) + threadIdx.x; c < cols; c += blockDim.x)
        acc += in[c];

    acc = warp_reduce_sum(acc);
    if (lane == 0) warp_sums[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        acc = lane < nwarps ? warp_sums[lane] : 0.0f;
        acc = warp_reduce_sum(acc);
        if (lane == 0) y[row] = acc;
    }
}
