// params: kind=block_per_row online=1 vec=4 block_x=256
// launch: grid=(rows) block=(256)
// One block per row, online statistics and float4 loads/stores (scalar tail if vocab % 4 != 0).
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
__device__ __forceinline__ void online_add(float v, float& mx, float& sum)
{
    if (v > mx) { sum *= expf(mx - v); mx = v; }
    sum += expf(v - mx);
}
extern "C" __global__ void log_softmax_block_vec4(const float* x, float* y, int rows, int vocab)
{
    __shared__ float sh[32];
    const float NEG_INF = -__int_as_float(0x7f800000);
    int r = blockIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * vocab;
    float* yr = y + (size_t)r * vocab;
    const float4* xv = reinterpret_cast<const float4*>(xr);
    float4* yv = reinterpret_cast<float4*>(yr);
    int nv = (vocab & 3) ? 0 : (vocab >> 2);
    float mx = NEG_INF, sum = 0.0f;
    for (int c = threadIdx.x; c < nv; c += blockDim.x) {
        float4 v = xv[c];
        online_add(v.x, mx, sum); online_add(v.y, mx, sum);
        online_add(v.z, mx, sum); online_add(v.w, mx, sum);
    }
    for (int c = 4 * nv + threadIdx.x; c < vocab; c += blockDim.x) online_add(xr[c], mx, sum);
    float bm = block_max(mx, sh);
    float part = (mx == NEG_INF) ? 0.0f : sum * expf(mx - bm);
    sum = block_sum(part, sh);
    float lse = bm + logf(sum);
    for (int c = threadIdx.x; c < nv; c += blockDim.x) {
        float4 v = xv[c];
        v.x -= lse; v.y -= lse; v.z -= lse; v.w -= lse;
        yv[c] = v;
    }
    for (int c = 4 * nv + threadIdx.x; c < vocab; c += blockDim.x) yr[c] = xr[c] - lse;
}
