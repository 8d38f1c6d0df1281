// Dot product: one product per thread, a shared-memory tree per block, one
// atomicAdd per block into the zeroed output. Must be launched with BLOCK threads.
#define BLOCK 256

extern "C" __global__ void __launch_bounds__(BLOCK)
dot_block_tree(const float* x, const float* y, float* out, int n)
{
    __shared__ float cache[BLOCK];
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    cache[threadIdx.x] = (i < n) ? x[i] * y[i] : 0.0f;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        atomicAdd(out, cache[0]);
}
