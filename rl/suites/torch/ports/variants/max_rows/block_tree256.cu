// params: kind=block_per_row reduce=smem_tree block_x=256
// launch: grid=(rows) block=(256)
// One block per row: strided partial maxs, then the classic shared-memory tree (halving, a
// __syncthreads per level).
extern "C" __global__ void max_rows_block_tree256(const float* x, float* y, int rows, int cols)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float v = __int_as_float(0xff800000);
    for (int c = tid; c < cols; c += blockDim.x) v = fmaxf(v, xr[c]);
    s[tid] = v;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] = fmaxf(s[tid], s[tid + k]);
        __syncthreads();
    }
    if (tid == 0) y[blockIdx.x] = s[0];
}
