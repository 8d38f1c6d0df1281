// params: kind=block_per_row online=0 vec=4 block_x=256
// launch: grid=(rows) block=(256)
// One block per row with float4 loads and stores (a scalar tail when cols is not a multiple of 4).
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
extern "C" __global__ void softmax_block_vec4(const float* x, float* y, int rows, int cols)
{
    __shared__ float part[32];
    __shared__ float stat;
    int r = blockIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    const float4* xv = reinterpret_cast<const float4*>(xr);
    float4* yv = reinterpret_cast<float4*>(yr);
    int nv = (cols & 3) ? 0 : (cols >> 2);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    float mx = -__int_as_float(0x7f800000);
    for (int c = threadIdx.x; c < nv; c += blockDim.x) {
        float4 v = xv[c];
        mx = fmaxf(mx, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
    for (int c = 4 * nv + threadIdx.x; c < cols; c += blockDim.x) mx = fmaxf(mx, xr[c]);
    mx = warp_max(mx);
    if (lane == 0) part[warp] = mx;
    __syncthreads();
    if (warp == 0) {
        mx = warp_max(lane < nw ? part[lane] : -__int_as_float(0x7f800000));
        if (lane == 0) stat = mx;
    }
    __syncthreads();
    mx = stat;
    float sum = 0.0f;
    for (int c = threadIdx.x; c < nv; c += blockDim.x) {
        float4 v = xv[c];
        sum += expf(v.x - mx) + expf(v.y - mx) + expf(v.z - mx) + expf(v.w - mx);
    }
    for (int c = 4 * nv + threadIdx.x; c < cols; c += blockDim.x) sum += expf(xr[c] - mx);
    sum = warp_sum(sum);
    __syncthreads();
    if (lane == 0) part[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = warp_sum(lane < nw ? part[lane] : 0.0f);
        if (lane == 0) stat = 1.0f / sum;
    }
    __syncthreads();
    float inv = stat;
    for (int c = threadIdx.x; c < nv; c += blockDim.x) {
        float4 v = xv[c];
        v.x = expf(v.x - mx) * inv; v.y = expf(v.y - mx) * inv;
        v.z = expf(v.z - mx) * inv; v.w = expf(v.w - mx) * inv;
        yv[c] = v;
    }
    for (int c = 4 * nv + threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - mx) * inv;
}
