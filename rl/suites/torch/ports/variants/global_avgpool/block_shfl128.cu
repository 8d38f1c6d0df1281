// params: kind=block_per_plane reduce=shuffle block_x=128
// launch: grid=(planes) block=(128)
// One block of 128 threads per plane: warp shuffles, the four warp sums through shared memory.
extern "C" __global__ void global_avgpool_block_shfl128(const float* x, float* y, int planes, int hw)
{
    __shared__ float part[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    const float* xp = x + (size_t)blockIdx.x * hw;
    float s = 0.0f;
    for (int i = threadIdx.x; i < hw; i += blockDim.x) s += xp[i];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) part[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < nw ? part[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        if (lane == 0) y[blockIdx.x] = s / hw;
    }
}
