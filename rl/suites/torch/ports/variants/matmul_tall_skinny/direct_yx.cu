// params: kind=direct order=yx block_x=16 block_y=16
// launch: grid=(cdiv(m, 16), cdiv(n, 16)) block=(16, 16)
// A poor port: threadIdx.x picks the row, so a warp reads A k floats apart and writes C strided by n.
extern "C" __global__ void matmul_tall_skinny_direct_yx(const float* a, const float* b, float* c, int m, int k, int n)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    float acc = 0.0f;
    for (int p = 0; p < k; ++p)
        acc += a[(size_t)row * k + p] * b[(size_t)p * n + col];
    c[(size_t)row * n + col] = acc;
}
