// params: kind=smem_x block_x=256
// launch: grid=(cdiv(n, 256)) block=(256) smem=(256 + 2 * band) * 4
// The slice of x the block's rows touch (its rows plus band each side) staged in shared memory.
extern "C" __global__ void banded_matvec_smem_x(int n, int band, const float* diags, const float* x, float* y)
{
    extern __shared__ float xs[];
    int first = blockIdx.x * blockDim.x - band;
    int span = blockDim.x + 2 * band;
    for (int t = threadIdx.x; t < span; t += blockDim.x) {
        int c = first + t;
        xs[t] = c >= 0 && c < n ? x[c] : 0.0f;
    }
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int d = 0; d <= 2 * band; ++d) {
        int c = i + d - band;
        if (c >= 0 && c < n)
            acc += diags[(size_t)d * n + i] * xs[threadIdx.x + d];
    }
    y[i] = acc;
}
