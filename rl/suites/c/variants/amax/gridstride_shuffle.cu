// params: kind=warp_shuffle scope=block gridstride=1 block_x=256
// launch: grid=(min(cdiv(n, 256), 1056)) block=(256)
// Grid-stride accumulation in registers, warp shuffles, then one atomicMax per block.
extern "C" __global__ void amax_gridstride_shuffle(int n, const float* x, float* out)
{
    __shared__ float warps[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v = fmaxf(v, fabsf(x[i]));
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? warps[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
        if (lane == 0) atomicMax((int*)out, __float_as_int(v));
    }
}
