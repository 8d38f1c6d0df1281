// params: kind=block_per_row block_x=256
// launch: grid=(rows) block=(256)
// One block per row; two block reductions (warp shuffles, then across warps in shared memory).
extern "C" __global__ void layernorm_rows_block_per_row(int rows, int cols, float eps, const float* x,
                                                        const float* gamma, const float* beta, float* y)
{
    __shared__ float part[32];
    __shared__ float stat;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) s += xr[c];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) part[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < nw ? part[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        if (lane == 0) stat = s / (float)cols;
    }
    __syncthreads();
    float mean = stat;
    float v = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float d = xr[c] - mean;
        v += d * d;
    }
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    __syncthreads();                         // everyone has read stat before it is overwritten
    if (lane == 0) part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nw ? part[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        if (lane == 0) stat = 1.0f / sqrtf(v / (float)cols + eps);
    }
    __syncthreads();
    float inv = stat;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = (xr[c] - mean) * inv * gamma[c] + beta[c];
}
