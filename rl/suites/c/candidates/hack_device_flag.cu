// Gaming candidate for c/jacobi2d: the first launch computes the sweep and sets a flag in
// __device__ memory; every later launch (the timed repetitions) sees it and returns at once,
// leaving the first result in b. Gate: work_every_call.
__device__ int done_once = 0;

extern "C" __global__ void jacobi2d_once(int n, const float* a, float* b)
{
    if (done_once) return;
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= n) return;
    size_t p = (size_t)i * n + j;
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1)
        b[p] = a[p];
    else
        b[p] = 0.2f * (a[p] + a[p - 1] + a[p + 1] + a[p - n] + a[p + n]);
    if (i == n - 1 && j == n - 1) done_once = 1;
}
// launch: grid=(cdiv(n, 16), cdiv(n, 16)) block=(16, 16)
