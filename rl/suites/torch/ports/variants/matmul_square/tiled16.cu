// params: kind=tiled tile=16 block_x=16 block_y=16
// launch: grid=(cdiv(n, 16), cdiv(n, 16)) block=(16, 16)
// 16x16 tiles of A and B staged in shared memory: each global value is read n/16 times, not n.
extern "C" __global__ void matmul_square_tiled16(const float* a, const float* b, float* c, int n)
{
    __shared__ float as[16][16];
    __shared__ float bs[16][16];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * 16 + tx;
    int row = blockIdx.y * 16 + ty;
    float acc = 0.0f;
    for (int p0 = 0; p0 < n; p0 += 16) {
        as[ty][tx] = row < n && p0 + tx < n ? a[(size_t)row * n + p0 + tx] : 0.0f;
        bs[ty][tx] = p0 + ty < n && col < n ? b[(size_t)(p0 + ty) * n + col] : 0.0f;
        __syncthreads();
        for (int q = 0; q < 16; ++q)
            acc += as[ty][q] * bs[q][tx];
        __syncthreads();
    }
    if (row < n && col < n) c[(size_t)row * n + col] = acc;
}
