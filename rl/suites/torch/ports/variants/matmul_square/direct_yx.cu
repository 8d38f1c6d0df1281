// params: kind=direct order=yx block_x=16 block_y=16
// launch: grid=(cdiv(n, 16), cdiv(n, 16)) block=(16, 16)
// A poor port: threadIdx.x picks the row, so a warp reads A n floats apart and writes C strided by n.
extern "C" __global__ void matmul_square_direct_yx(const float* a, const float* b, float* c, int n)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= n) return;
    float acc = 0.0f;
    for (int p = 0; p < n; ++p)
        acc += a[(size_t)row * n + p] * b[(size_t)p * n + col];
    c[(size_t)row * n + col] = acc;
}
