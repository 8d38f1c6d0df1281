// Row softmax, one block per row, the whole row cached in dynamic shared
// memory so global memory is read once; __expf; block reductions built from
// warp shuffles. Dynamic shared memory: (cols + 32) floats.
#define FULL_MASK 0xffffffffu
#define NEG_INF (-__int_as_float(0x7f800000))

__device__ __forceinline__ float warp_max(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, o));
    return v;
}

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
    return v;
}

// Every thread gets the block-wide result; scratch holds 32 floats.
__device__ float block_max(float v, float* scratch)
{
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_max(v);
    __syncthreads();  // scratch may still be read by a previous reduction
    if (lane == 0) scratch[wid] = v;
    __syncthreads();
    return warp_max(lane < nw ? scratch[lane] : NEG_INF);
}

__device__ float block_sum(float v, float* scratch)
{
    const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) scratch[wid] = v;
    __syncthreads();
    return warp_sum(lane < nw ? scratch[lane] : 0.0f);
}

extern "C" __global__ void softmax_smem_row(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    extern __shared__ float smem[];
    float* row_buf = smem;
    float* scratch = smem + cols;
    const int row = blockIdx.x;
    if (row >= rows) return;
    const float* in = x + (size_t)row * cols;
    float* out = y + (size_t)row * cols;

    float m = NEG_INF;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = in[c];
        row_buf[c] = v;
        m = fmaxf(m, v);
    }
    m = block_max(m, scratch);

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float e = __expf(row_buf[c] - m);  // each thread rereads only what it wrote
        row_buf[c] = e;
        s += e;
    }
    s = block_sum(s, scratch);
    const float inv = 1.0f / s;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = row_buf[c] * inv;
}
