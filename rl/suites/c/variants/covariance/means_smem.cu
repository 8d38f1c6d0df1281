// params: kind=means_first block_x=16 block_y=16
// launch: grid=(cdiv(m, 16), cdiv(m, 16)) block=(16, 16)
// The naive port's loop, but the 32 column means the block needs are computed once per block
// (8 threads per column) instead of once per thread.
extern "C" __global__ void covariance_means_smem(int n, int m, const float* data, float* cov)
{
    __shared__ float mean[2][32];
    int T = blockDim.x;
    int i0 = blockIdx.y * T, j0 = blockIdx.x * T;
    int tid = threadIdx.y * T + threadIdx.x;
    int per = T / 2;
    int col = tid / per, part = tid % per;
    int gc = col < T ? i0 + col : j0 + col - T;
    float s = 0.0f;
    if (gc < m)
        for (int k = part; k < n; k += per) s += data[(size_t)k * m + gc];
    for (int o = per / 2; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (part == 0) mean[col / T][col % T] = s / (float)n;
    __syncthreads();
    int i = i0 + threadIdx.y, j = j0 + threadIdx.x;
    if (i >= m || j >= m) return;
    float mi = mean[0][threadIdx.y], mj = mean[1][threadIdx.x];
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
        acc += (data[(size_t)k * m + i] - mi) * (data[(size_t)k * m + j] - mj);
    cov[(size_t)i * m + j] = acc / (float)(n - 1);
}
