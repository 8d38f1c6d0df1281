// params: kind=block_per_row cache=0 vec=1 block_x=1024
// launch: grid=(tokens) block=(1024)
// One block of 1024 threads per row, two-pass statistics; x + residual re-read from global each pass.
__device__ __forceinline__ float warp_max(float v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
// Block-wide reductions (blockDim.x a multiple of 32); sh holds 32 floats; every thread gets the result.
__device__ float block_max(float v, float* sh)
{
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_max(v);
    __syncthreads();                    // earlier readers of sh are done
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_max(lane < nw ? sh[lane] : -__int_as_float(0x7f800000));
        if (lane == 0) sh[0] = v;
    }
    __syncthreads();
    return sh[0];
}
__device__ float block_sum(float v, float* sh)
{
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_sum(lane < nw ? sh[lane] : 0.0f);
        if (lane == 0) sh[0] = v;
    }
    __syncthreads();
    return sh[0];
}
extern "C" __global__ void residual_layernorm_block_per_row_1024(const float* x, const float* residual, const float* weight,
                                                              const float* bias, float* y, int tokens, int hidden)
{
    __shared__ float sh[32];
    int r = blockIdx.x;
    if (r >= tokens) return;
    size_t base = (size_t)r * hidden;
    float s = 0.0f;
    for (int c = threadIdx.x; c < hidden; c += blockDim.x) s += x[base + c] + residual[base + c];
    float mean = block_sum(s, sh) / hidden;
    float q = 0.0f;
    for (int c = threadIdx.x; c < hidden; c += blockDim.x) {
        float d = x[base + c] + residual[base + c] - mean;
        q += d * d;
    }
    float rstd = rsqrtf(block_sum(q, sh) / hidden + 1e-5f);
    for (int c = threadIdx.x; c < hidden; c += blockDim.x)
        y[base + c] = (x[base + c] + residual[base + c] - mean) * rstd * weight[c] + bias[c];
}
