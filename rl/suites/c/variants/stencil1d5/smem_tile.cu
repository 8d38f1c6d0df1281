// params: kind=smem_tile block_x=256
// launch: grid=(cdiv(n, 256)) block=(256)
// The block's points and a two-point halo each side staged in shared memory.
extern "C" __global__ void stencil1d5_smem_tile(int n, float s, const float* x, float* y)
{
    __shared__ float t[256 + 4];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    t[threadIdx.x + 2] = i < n ? x[i] : 0.0f;
    if (threadIdx.x < 2) {
        int l = blockIdx.x * blockDim.x - 2 + threadIdx.x;
        int r = blockIdx.x * blockDim.x + blockDim.x + threadIdx.x;
        t[threadIdx.x] = l >= 0 && l < n ? x[l] : 0.0f;
        t[blockDim.x + 2 + threadIdx.x] = r < n ? x[r] : 0.0f;
    }
    __syncthreads();
    if (i >= n) return;
    if (i < 2 || i >= n - 2) {
        y[i] = 0.0f;
        return;
    }
    const float* p = t + threadIdx.x + 2;
    float c = s / 12.0f;
    y[i] = c * (-p[-2] + 16.0f * p[-1] - 30.0f * p[0] + 16.0f * p[1] - p[2]);
}
