// params: kind=tiled tile=32 block_x=32 block_y=32
// launch: grid=(cdiv(n, 32), cdiv(m, 32)) block=(32, 32)
extern "C" __global__ void gemm_tiled32(int m, int n, int k, const float* a, const float* b, float* c)
{
    __shared__ float as[32][33];
    __shared__ float bs[32][32];
    int col = blockIdx.x * 32 + threadIdx.x;
    int row = blockIdx.y * 32 + threadIdx.y;
    float acc = 0.0f;
    for (int p0 = 0; p0 < k; p0 += 32) {
        as[threadIdx.y][threadIdx.x] = row < m && p0 + threadIdx.x < k ? a[(size_t)row * k + p0 + threadIdx.x] : 0.0f;
        bs[threadIdx.y][threadIdx.x] = p0 + threadIdx.y < k && col < n ? b[(size_t)(p0 + threadIdx.y) * n + col] : 0.0f;
        __syncthreads();
        for (int q = 0; q < 32; ++q)
            acc += as[threadIdx.y][q] * bs[q][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n) c[(size_t)row * n + col] = acc;
}
