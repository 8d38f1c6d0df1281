// params: kind=block_per_row vec=1 block_x=1024
// launch: grid=(rows) block=(1024)
// One block per row, 1024 columns per tile: warp shuffle scans, the warps' totals scanned by warp 0
// through shared memory, a carry between tiles (two barriers per tile).
extern "C" __global__ void cumsum_block_tiled_1024(const float* x, float* y, int rows, int cols)
{
    __shared__ float wsum[32];
    int r = blockIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    float carry = 0.0f;
    for (int c0 = 0; c0 < cols; c0 += blockDim.x) {
        int c = c0 + threadIdx.x;
        float v = c < cols ? xr[c] : 0.0f;
        for (int o = 1; o < 32; o <<= 1) {
            float t = __shfl_up_sync(0xffffffffu, v, o);
            if (lane >= o) v += t;
        }
        if (lane == 31) wsum[warp] = v;
        __syncthreads();
        if (warp == 0) {
            float w = lane < nw ? wsum[lane] : 0.0f;
            for (int o = 1; o < 32; o <<= 1) {
                float t = __shfl_up_sync(0xffffffffu, w, o);
                if (lane >= o) w += t;
            }
            if (lane < nw) wsum[lane] = w;
        }
        __syncthreads();
        float off = warp > 0 ? wsum[warp - 1] : 0.0f;
        if (c < cols) yr[c] = carry + off + v;
        carry += wsum[nw - 1];
        __syncthreads();                    // wsum is read before the next tile overwrites it
    }
}
