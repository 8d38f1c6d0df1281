// params: kind=naive_port block_x=32 block_y=8
// launch: grid=(cdiv(n, 32), cdiv(m, 8)) block=(32, 8)
extern "C" __global__ void gemm_direct_32x8(int m, int n, int k, const float* a, const float* b, float* c)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    float acc = 0.0f;
    for (int p = 0; p < k; ++p)
        acc += a[(size_t)row * k + p] * b[(size_t)p * n + col];
    c[(size_t)row * n + col] = acc;
}
