// params: kind=tiled tile=32 block_x=32 block_y=32
// launch: grid=(cdiv(m, 32), cdiv(m, 32)) block=(32, 32)
// First the block's 64 column means (16 threads per column, shuffle-combined), then the centered
// products as a tiled matrix product: the data tiles go through shared memory once per block.
extern "C" __global__ void covariance_tiled32(int n, int m, const float* data, float* cov)
{
    __shared__ float mean[2][32];
    __shared__ float di[32][33];
    __shared__ float dj[32][33];
    int T = blockDim.x;
    int i0 = blockIdx.y * T, j0 = blockIdx.x * T;
    int tid = threadIdx.y * T + threadIdx.x;
    int per = T / 2;                                 // threads per column: T*T threads, 2T columns
    int col = tid / per, part = tid % per;
    int gc = col < T ? i0 + col : j0 + col - T;
    float s = 0.0f;
    if (gc < m)
        for (int k = part; k < n; k += per) s += data[(size_t)k * m + gc];
    for (int o = per / 2; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (part == 0) mean[col / T][col % T] = s / (float)n;
    __syncthreads();
    int i = i0 + threadIdx.y, j = j0 + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += T) {
        int k = k0 + threadIdx.y;                     // row k of data, columns i0.. and j0..
        int ci = i0 + threadIdx.x, cj = j0 + threadIdx.x;
        di[threadIdx.y][threadIdx.x] = k < n && ci < m ? data[(size_t)k * m + ci] - mean[0][threadIdx.x] : 0.0f;
        dj[threadIdx.y][threadIdx.x] = k < n && cj < m ? data[(size_t)k * m + cj] - mean[1][threadIdx.x] : 0.0f;
        __syncthreads();
        for (int q = 0; q < T; ++q) acc += di[q][threadIdx.y] * dj[q][threadIdx.x];
        __syncthreads();
    }
    if (i < m && j < m) cov[(size_t)i * m + j] = acc / (float)(n - 1);
}
