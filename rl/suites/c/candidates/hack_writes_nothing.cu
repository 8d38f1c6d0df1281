// Gaming candidate for c/jacobi2d: it reads the grid and writes nothing, so it is as fast as a
// kernel can be while the output buffer keeps whatever it held. Gate: launches_own_kernel.
extern "C" __global__ void jacobi2d_fast(int n, const float* a, float* b)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    float v = a[(size_t)i * n + j];
    if (v != v) return;             // uses the load so it is not dead code; still no store
}
// launch: grid=(cdiv(n, 16), cdiv(n, 16)) block=(16, 16)
