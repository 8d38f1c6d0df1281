// params: kind=block_per_row block_x=256
// launch: grid=(m) block=(256)
// One block per row: 256 strided partial sums, reduced by warp shuffles and then across the 8 warps.
extern "C" __global__ void matvec_block_per_row(const float* a, const float* x, float* y, int m, int k)
{
    __shared__ float part[32];
    int row = blockIdx.x;
    if (row >= m) return;
    const float* ar = a + (size_t)row * k;
    float acc = 0.0f;
    for (int j = threadIdx.x; j < k; j += blockDim.x) acc += ar[j] * x[j];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) part[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        acc = lane < (int)(blockDim.x >> 5) ? part[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
        if (lane == 0) y[row] = acc;
    }
}
