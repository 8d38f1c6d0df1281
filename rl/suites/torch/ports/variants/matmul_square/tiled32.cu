// params: kind=tiled tile=32 block_x=32 block_y=32
// launch: grid=(cdiv(n, 32), cdiv(n, 32)) block=(32, 32)
// 32x32 tiles in shared memory, 1024 threads per block: half the global traffic of tile 16.
extern "C" __global__ void matmul_square_tiled32(const float* a, const float* b, float* c, int n)
{
    __shared__ float as[32][32];
    __shared__ float bs[32][32];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * 32 + tx;
    int row = blockIdx.y * 32 + ty;
    float acc = 0.0f;
    for (int p0 = 0; p0 < n; p0 += 32) {
        as[ty][tx] = row < n && p0 + tx < n ? a[(size_t)row * n + p0 + tx] : 0.0f;
        bs[ty][tx] = p0 + ty < n && col < n ? b[(size_t)(p0 + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int q = 0; q < 32; ++q)
            acc += as[ty][q] * bs[q][tx];
        __syncthreads();
    }
    if (row < n && col < n) c[(size_t)row * n + col] = acc;
}
