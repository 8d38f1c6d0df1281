// params: kind=block_per_row online=0 vec=1 block_x=256
// launch: grid=(rows) block=(256)
// One block of 256 threads per row: warp shuffles, then the per-warp partials through shared memory.
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
extern "C" __global__ void softmax_block_per_row_256(const float* x, float* y, int rows, int cols)
{
    __shared__ float part[32];
    __shared__ float stat;
    int r = blockIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    float mx = -__int_as_float(0x7f800000);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) mx = fmaxf(mx, xr[c]);
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
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(xr[c] - mx);
    sum = warp_sum(sum);
    __syncthreads();                    // every thread has read stat and part
    if (lane == 0) part[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = warp_sum(lane < nw ? part[lane] : 0.0f);
        if (lane == 0) stat = 1.0f / sum;
    }
    __syncthreads();
    float inv = stat;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - mx) * inv;
}
