// params: kind=block_per_row block_x=256
// launch: grid=(rows) block=(256)
// One block per row, 256 columns at a time: warp scans, a scan of the 8 warp totals, a carry.
extern "C" __global__ void cumsum_rows_block_per_row(int rows, int cols, const float* x, float* y)
{
    __shared__ float tot[32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    float carry = 0.0f;
    for (int c0 = 0; c0 < cols; c0 += blockDim.x) {
        int c = c0 + threadIdx.x;
        float v = c < cols ? xr[c] : 0.0f;
        for (int o = 1; o < 32; o <<= 1) {
            float u = __shfl_up_sync(0xffffffffu, v, o);
            if (lane >= o) v += u;
        }
        if (lane == 31) tot[warp] = v;
        __syncthreads();
        if (warp == 0) {
            float t = lane < nw ? tot[lane] : 0.0f;
            for (int o = 1; o < 32; o <<= 1) {
                float u = __shfl_up_sync(0xffffffffu, t, o);
                if (lane >= o) t += u;
            }
            if (lane < nw) tot[lane] = t;            // inclusive scan of the warp totals
        }
        __syncthreads();
        float before = carry + (warp > 0 ? tot[warp - 1] : 0.0f);
        if (c < cols) yr[c] = before + v;
        carry += tot[nw - 1];
        __syncthreads();                             // tot is rewritten by the next chunk
    }
}
