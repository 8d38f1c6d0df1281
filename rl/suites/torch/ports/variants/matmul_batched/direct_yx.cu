// params: kind=direct order=yx block_x=16 block_y=16
// launch: grid=(cdiv(m, 16), cdiv(n, 16), batch) block=(16, 16)
// A poor port: threadIdx.x picks the row, so a warp reads A k floats apart and writes C strided by n.
extern "C" __global__ void matmul_batched_direct_yx(const float* a, const float* b, float* c, int batch, int m, int k, int n)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z;
    if (z >= batch || row >= m || col >= n) return;
    const float* az = a + (size_t)z * m * k;
    const float* bz = b + (size_t)z * k * n;
    float acc = 0.0f;
    for (int p = 0; p < k; ++p)
        acc += az[(size_t)row * k + p] * bz[(size_t)p * n + col];
    c[(size_t)z * m * n + (size_t)row * n + col] = acc;
}
