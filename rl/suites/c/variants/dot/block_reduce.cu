// params: kind=block_reduce block_x=256
// launch: grid=(cdiv(n, 256)) block=(256)
// A shared-memory tree per block, one double atomicAdd per block.
extern "C" __global__ void dot_block_reduce(int n, const double* x, const double* y, double* out)
{
    __shared__ double s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] * y[i] : 0.0;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
