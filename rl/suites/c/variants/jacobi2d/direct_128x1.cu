// params: kind=direct block_x=128 block_y=1
// launch: grid=(cdiv(n, 128), n) block=(128)
extern "C" __global__ void jacobi2d_direct_128x1(int n, const float* a, float* b)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y;
    if (j >= n) return;
    size_t p = (size_t)i * n + j;
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1)
        b[p] = a[p];
    else
        b[p] = 0.2f * (a[p] + a[p - 1] + a[p + 1] + a[p - n] + a[p + n]);
}
