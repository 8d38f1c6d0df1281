// params: kind=tiled tile=16 block_x=16 block_y=16
// launch: grid=(cdiv(n, 16), cdiv(m, 16)) block=(16, 16)
// 16x16 tiles of A and B staged in shared memory: each global value read m/16 (n/16) times, not m (n).
extern "C" __global__ void gemm_tiled16(int m, int n, int k, const float* a, const float* b, float* c)
{
    __shared__ float as[16][16];
    __shared__ float bs[16][16];
    int col = blockIdx.x * 16 + threadIdx.x;
    int row = blockIdx.y * 16 + threadIdx.y;
    float acc = 0.0f;
    for (int p0 = 0; p0 < k; p0 += 16) {
        as[threadIdx.y][threadIdx.x] = row < m && p0 + threadIdx.x < k ? a[(size_t)row * k + p0 + threadIdx.x] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = p0 + threadIdx.y < k && col < n ? b[(size_t)(p0 + threadIdx.y) * n + col] : 0.0f;
        __syncthreads();
        for (int q = 0; q < 16; ++q)
            acc += as[threadIdx.y][q] * bs[q][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n) c[(size_t)row * n + col] = acc;
}
