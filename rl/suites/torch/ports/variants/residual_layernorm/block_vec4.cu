// params: kind=block_per_row cache=0 vec=4 block_x=256
// launch: grid=(tokens) block=(256)
// One block per row, float4 accesses, one-pass sum / sum of squares (scalar tail if hidden % 4 != 0).
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
extern "C" __global__ void residual_layernorm_block_vec4(const float* x, const float* residual, const float* weight,
                                                         const float* bias, float* y, int tokens, int hidden)
{
    __shared__ float sh[32];
    int r = blockIdx.x;
    if (r >= tokens) return;
    size_t base = (size_t)r * hidden;
    const float4* xv = reinterpret_cast<const float4*>(x + base);
    const float4* rv = reinterpret_cast<const float4*>(residual + base);
    const float4* wv = reinterpret_cast<const float4*>(weight);
    const float4* bv = reinterpret_cast<const float4*>(bias);
    float4* yv = reinterpret_cast<float4*>(y + base);
    int nv = (hidden & 3) ? 0 : (hidden >> 2);
    float s = 0.0f, q = 0.0f;
    for (int c = threadIdx.x; c < nv; c += blockDim.x) {
        float4 a = xv[c], b = rv[c];
        float v0 = a.x + b.x, v1 = a.y + b.y, v2 = a.z + b.z, v3 = a.w + b.w;
        s += (v0 + v1) + (v2 + v3);
        q += (v0 * v0 + v1 * v1) + (v2 * v2 + v3 * v3);
    }
    for (int c = 4 * nv + threadIdx.x; c < hidden; c += blockDim.x) {
        float v = x[base + c] + residual[base + c];
        s += v; q += v * v;
    }
    float mean = block_sum(s, sh) / hidden;
    float var = fmaxf(block_sum(q, sh) / hidden - mean * mean, 0.0f);
    float rstd = rsqrtf(var + 1e-5f);
    for (int c = threadIdx.x; c < nv; c += blockDim.x) {
        float4 a = xv[c], b = rv[c], w = wv[c], o = bv[c];
        float4 v;
        v.x = (a.x + b.x - mean) * rstd * w.x + o.x;
        v.y = (a.y + b.y - mean) * rstd * w.y + o.y;
        v.z = (a.z + b.z - mean) * rstd * w.z + o.z;
        v.w = (a.w + b.w - mean) * rstd * w.w + o.w;
        yv[c] = v;
    }
    for (int c = 4 * nv + threadIdx.x; c < hidden; c += blockDim.x)
        y[base + c] = (x[base + c] + residual[base + c] - mean) * rstd * weight[c] + bias[c];
}
