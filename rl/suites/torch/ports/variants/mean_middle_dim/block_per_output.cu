// params: kind=block_per_output block_x=256
// launch: grid=(nb * nc) block=(256)
// A poor port, the "reduce with a block" habit applied to a strided reduction: one block per output,
// threads stride over R, so consecutive threads read floats C apart (a sector each), then a
// shared-memory tree.
extern "C" __global__ void mean_middle_dim_block_per_output(const float* x, float* y, int nb, int nr, int nc)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    int b = blockIdx.x / nc, c = blockIdx.x % nc;
    float v = 0.0f;
    for (int r = tid; r < nr; r += blockDim.x) v += x[((size_t)b * nr + r) * nc + c];
    s[tid] = v;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) y[blockIdx.x] = s[0] / nr;
}
