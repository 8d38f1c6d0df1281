// y = A x, one block of BLOCK threads per row, float4 loads of A and x
// (cols % 4 == 0), warp shuffles then a shared array of warp sums.
template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
gemv_block_vec4(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    __shared__ float warp_sums[BLOCK / 32];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const float4* a4 = reinterpret_cast<const float4*>(A + (size_t)row * cols);
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const int n4 = cols >> 2;

    float acc = 0.0f;
    for (int i = threadIdx.x; i < n4; i += BLOCK) {
        const float4 a = a4[i];
        const float4 b = __ldg(x4 + i);
        acc = fmaf(a.x, b.x, acc);
        acc = fmaf(a.y, b.y, acc);
        acc = fmaf(a.z, b.z, acc);
        acc = fmaf(a.w, b.w, acc);
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
#pragma unroll
        for (int w = 0; w < BLOCK / 32; ++w) s += warp_sums[w];
        y[row] = s;
    }
}

template __global__ void gemv_block_vec4<128>(const float* __restrict__, const float* __restrict__, float* __restrict__, int, int);
template __global__ void gemv_block_vec4<256>(const float* __restrict__, const float* __restrict__, float* __restrict__, int, int);
