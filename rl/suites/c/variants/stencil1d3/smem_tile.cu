// params: kind=smem_tile block_x=256
// launch: grid=(cdiv(n, 256)) block=(256)
// The block's points and a one-point halo on each side staged in shared memory.
extern "C" __global__ void stencil1d3_smem_tile(int n, const float* x, float* y)
{
    __shared__ float t[256 + 2];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    t[threadIdx.x + 1] = i < n ? x[i] : 0.0f;
    if (threadIdx.x == 0) t[0] = i > 0 && i - 1 < n ? x[i - 1] : 0.0f;
    if (threadIdx.x == blockDim.x - 1) t[blockDim.x + 1] = i + 1 < n ? x[i + 1] : 0.0f;
    __syncthreads();
    if (i >= n) return;
    const float* c = t + threadIdx.x + 1;
    y[i] = (i == 0 || i == n - 1) ? c[0] : 0.25f * c[-1] + 0.5f * c[0] + 0.25f * c[1];
}
