// params: kind=block_per_row vec=4 block_x=256
// launch: grid=(tokens) block=(256)
// One block per row, float4 accesses, sum and sum of squares in one pass (var = E[x^2] - mean^2).
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
extern "C" __global__ void layernorm_block_vec4(const float* x, const float* weight, const float* bias, float* y,
                                                int tokens, int hidden)
{
    __shared__ float sh[32];
    int r = blockIdx.x;
    if (r >= tokens) return;
    const float* xr = x + (size_t)r * hidden;
    float* yr = y + (size_t)r * hidden;
    const float4* xv = reinterpret_cast<const float4*>(xr);
    float4* yv = reinterpret_cast<float4*>(yr);
    const float4* wv = reinterpret_cast<const float4*>(weight);
    const float4* bv = reinterpret_cast<const float4*>(bias);
    int nv = (hidden & 3) ? 0 : (hidden >> 2);
    float s = 0.0f, q = 0.0f;
    for (int c = threadIdx.x; c < nv; c += blockDim.x) {
        float4 v = xv[c];
        s += (v.x + v.y) + (v.z + v.w);
        q += (v.x * v.x + v.y * v.y) + (v.z * v.z + v.w * v.w);
    }
    for (int c = 4 * nv + threadIdx.x; c < hidden; c += blockDim.x) { float v = xr[c]; s += v; q += v * v; }
    float mean = block_sum(s, sh) / hidden;
    float var = fmaxf(block_sum(q, sh) / hidden - mean * mean, 0.0f);
    float rstd = rsqrtf(var + 1e-5f);
    for (int c = threadIdx.x; c < nv; c += blockDim.x) {
        float4 v = xv[c], w = wv[c], b = bv[c];
        v.x = (v.x - mean) * rstd * w.x + b.x;
        v.y = (v.y - mean) * rstd * w.y + b.y;
        v.z = (v.z - mean) * rstd * w.z + b.z;
        v.w = (v.w - mean) * rstd * w.w + b.w;
        yv[c] = v;
    }
    for (int c = 4 * nv + threadIdx.x; c < hidden; c += blockDim.x)
        yr[c] = (xr[c] - mean) * rstd * weight[c] + bias[c];
}
