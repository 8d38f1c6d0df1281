// params: kind=block_per_row online=1 vec=4 block_x=256
// launch: grid=(rows) block=(256)
// One block of 256 threads per row, float4 loads, online max/sum: the row is read once.
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
extern "C" __global__ void cross_entropy_online_vec4_256(const float* logits, const long long* targets, float* loss,
                                                       int rows, int classes)
{
    __shared__ float sh[32];
    const float NEG_INF = -__int_as_float(0x7f800000);
    int r = blockIdx.x;
    if (r >= rows) return;
    const float* xr = logits + (size_t)r * classes;
    const float4* xv = reinterpret_cast<const float4*>(xr);
    int nv = (classes & 3) ? 0 : (classes >> 2);
    float mx = NEG_INF, sum = 0.0f;
    for (int c = threadIdx.x; c < nv; c += blockDim.x) {
        float4 v = xv[c];
        online_add(v.x, mx, sum); online_add(v.y, mx, sum);
        online_add(v.z, mx, sum); online_add(v.w, mx, sum);
    }
    for (int c = 4 * nv + threadIdx.x; c < classes; c += blockDim.x) online_add(xr[c], mx, sum);
    float bm = block_max(mx, sh);
    float part = (mx == NEG_INF) ? 0.0f : sum * expf(mx - bm);
    sum = block_sum(part, sh);
    if (threadIdx.x == 0) {
        long long t = targets[r];
        float picked = (t >= 0 && t < classes) ? xr[t] : 0.0f;
        atomicAdd(loss, (bm + logf(sum) - picked) / rows);
    }
}
