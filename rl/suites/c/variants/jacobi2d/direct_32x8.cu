// params: kind=direct block_x=32 block_y=8
// launch: grid=(cdiv(n, 32), cdiv(n, 8)) block=(32, 8)
extern "C" __global__ void jacobi2d_direct_32x8(int n, const float* a, float* b)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    size_t p = (size_t)i * n + j;
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1)
        b[p] = a[p];
    else
        b[p] = 0.2f * (a[p] + a[p - 1] + a[p + 1] + a[p - n] + a[p + n]);
}
