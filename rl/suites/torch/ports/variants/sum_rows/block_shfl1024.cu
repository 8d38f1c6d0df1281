// params: kind=block_per_row reduce=shuffle vec=1 block_x=1024
// launch: grid=(rows) block=(1024)
// One block of 1024 threads per row: warp shuffles, one partial per
// warp in shared memory, the first warp combines them.
extern "C" __global__ void sum_rows_block_shfl1024(const float* x, float* y, int rows, int cols)
{
    __shared__ float part[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float v = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) v = v + xr[c];
    for (int o = 16; o > 0; o >>= 1) v = v + __shfl_xor_sync(0xffffffffu, v, o);
    if (lane == 0) part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nw ? part[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v = v + __shfl_xor_sync(0xffffffffu, v, o);
        if (lane == 0) y[blockIdx.x] = v;
    }
}
