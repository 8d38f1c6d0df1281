// params: kind=block_per_row reduce=shuffle block_x=1024
// launch: grid=(rows) block=(1024)
// One block of 1024 threads per row: (value, index) shuffles within each warp, one pair per warp in
// shared memory, the first warp combines them; ties to the smaller index.
extern "C" __global__ void argmax_rows_block_shfl1024(const float* x, long long* y, int rows, int cols)
{
    __shared__ float pv[32];
    __shared__ int pi[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float v = __int_as_float(0xff800000);
    int i = 0x7fffffff;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float q = xr[c];
        if (q > v) { v = q; i = c; }
    }
    for (int o = 16; o > 0; o >>= 1) {
        float ov = __shfl_xor_sync(0xffffffffu, v, o);
        int oi = __shfl_xor_sync(0xffffffffu, i, o);
        if (ov > v || (ov == v && oi < i)) { v = ov; i = oi; }
    }
    if (lane == 0) { pv[warp] = v; pi[warp] = i; }
    __syncthreads();
    if (warp == 0) {
        v = lane < nw ? pv[lane] : __int_as_float(0xff800000);
        i = lane < nw ? pi[lane] : 0x7fffffff;
        for (int o = 16; o > 0; o >>= 1) {
            float ov = __shfl_xor_sync(0xffffffffu, v, o);
            int oi = __shfl_xor_sync(0xffffffffu, i, o);
            if (ov > v || (ov == v && oi < i)) { v = ov; i = oi; }
        }
        if (lane == 0) y[blockIdx.x] = (long long)i;
    }
}
