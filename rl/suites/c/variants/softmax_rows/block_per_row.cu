// params: kind=block_per_row online=0 block_x=256
// launch: grid=(rows) block=(256)
// One block per row: block-wide max and sum through warp shuffles and shared memory.
extern "C" __global__ void softmax_rows_block_per_row(int rows, int cols, const float* x, float* y)
{
    __shared__ float part[32];
    __shared__ float stat;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    float mx = -__int_as_float(0x7f800000);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) mx = fmaxf(mx, xr[c]);
    for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    if (lane == 0) part[warp] = mx;
    __syncthreads();
    if (warp == 0) {
        mx = lane < nw ? part[lane] : -__int_as_float(0x7f800000);
        for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
        if (lane == 0) stat = mx;
    }
    __syncthreads();
    mx = stat;
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(xr[c] - mx);
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    __syncthreads();                         // everyone has read stat before it is overwritten
    if (lane == 0) part[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = lane < nw ? part[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
        if (lane == 0) stat = 1.0f / sum;
    }
    __syncthreads();
    float inv = stat;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - mx) * inv;
}
