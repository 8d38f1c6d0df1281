// params: kind=block_per_row reduce=shuffle vec=4 block_x=1024
// launch: grid=(rows) block=(1024)
// One block of 1024 threads per row with float4 loads (cols % 4 == 0; scalar otherwise): warp shuffles, one partial per
// warp in shared memory, the first warp combines them.
extern "C" __global__ void max_rows_block_vec4_1024(const float* x, float* y, int rows, int cols)
{
    __shared__ float part[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float v = __int_as_float(0xff800000);
    if ((cols & 3) == 0) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        for (int c = threadIdx.x; c < cols / 4; c += blockDim.x) {
            float4 q = x4[c];
            v = fmaxf(v, q.x); v = fmaxf(v, q.y); v = fmaxf(v, q.z); v = fmaxf(v, q.w);
        }
    } else {
        for (int c = threadIdx.x; c < cols; c += blockDim.x) v = fmaxf(v, xr[c]);
    }
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (lane == 0) part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nw ? part[lane] : __int_as_float(0xff800000);
        for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
        if (lane == 0) y[blockIdx.x] = v;
    }
}
