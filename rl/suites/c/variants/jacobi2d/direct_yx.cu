// params: kind=direct order=yx block_x=16 block_y=16
// launch: grid=(cdiv(n, 16), cdiv(n, 16)) block=(16, 16)
// Plausible but slower: threadIdx.x indexes rows, so a warp's accesses stride by n floats.
extern "C" __global__ void jacobi2d_direct_yx(int n, const float* a, float* b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    size_t p = (size_t)i * n + j;
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1)
        b[p] = a[p];
    else
        b[p] = 0.2f * (a[p] + a[p - 1] + a[p + 1] + a[p - n] + a[p + n]);
}
