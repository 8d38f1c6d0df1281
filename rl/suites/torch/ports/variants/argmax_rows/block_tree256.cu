// params: kind=block_per_row reduce=smem_tree block_x=256
// launch: grid=(rows) block=(256)
// One block per row: strided per-thread maxima, then a shared-memory tree on (value, index) pairs,
// ties to the smaller index.
extern "C" __global__ void argmax_rows_block_tree256(const float* x, long long* y, int rows, int cols)
{
    __shared__ float sv[256];
    __shared__ int si[256];
    int tid = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float v = __int_as_float(0xff800000);
    int i = 0x7fffffff;
    for (int c = tid; c < cols; c += blockDim.x) {
        float q = xr[c];
        if (q > v) { v = q; i = c; }
    }
    sv[tid] = v;
    si[tid] = i;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) {
            float ov = sv[tid + k];
            int oi = si[tid + k];
            if (ov > sv[tid] || (ov == sv[tid] && oi < si[tid])) { sv[tid] = ov; si[tid] = oi; }
        }
        __syncthreads();
    }
    if (tid == 0) y[blockIdx.x] = (long long)si[0];
}
