// params: kind=single_block online=0 vec=1 block_x=1024
// launch: grid=(1) block=(1024)
// A poor port: one block walks every row in turn (no atomics, a deterministic sum), so a single
// SM does all the work while the rest of the GPU idles.
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
extern "C" __global__ void cross_entropy_single_block(const float* logits, const long long* targets, float* loss,
                                                      int rows, int classes)
{
    __shared__ float sh[32];
    float total = 0.0f;
    for (int r = 0; r < rows; ++r) {
        const float* xr = logits + (size_t)r * classes;
        float mx = -__int_as_float(0x7f800000);
        for (int c = threadIdx.x; c < classes; c += blockDim.x) mx = fmaxf(mx, xr[c]);
        mx = block_max(mx, sh);
        float sum = 0.0f;
        for (int c = threadIdx.x; c < classes; c += blockDim.x) sum += expf(xr[c] - mx);
        sum = block_sum(sum, sh);
        long long t = targets[r];
        float picked = (t >= 0 && t < classes) ? xr[t] : 0.0f;
        total += mx + logf(sum) - picked;
    }
    if (threadIdx.x == 0) loss[0] = total / rows;
}
