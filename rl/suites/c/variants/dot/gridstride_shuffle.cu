// params: kind=warp_shuffle scope=block gridstride=1 block_x=256
// launch: grid=(min(cdiv(n, 256), 1056)) block=(256)
// Each thread sums a strided share in a register; warp shuffles and one atomic per block.
extern "C" __global__ void dot_gridstride_shuffle(int n, const double* x, const double* y, double* out)
{
    __shared__ double warps[32];
    double v = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += x[i] * y[i];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? warps[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        if (lane == 0) atomicAdd(out, v);
    }
}
