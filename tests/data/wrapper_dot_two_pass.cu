// params: kind=two_pass block_x=256
// Two passes: per-block partial sums into scratch memory, then one block sums the partials.
#include <cuda_runtime.h>

#define THREADS 256

__global__ void partial_dot(int n, const double* x, const double* y, double* part)
{
    __shared__ double s[THREADS];
    double acc = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc += x[i] * y[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) part[blockIdx.x] = s[0];
}

__global__ void final_sum(int m, const double* part, double* out)
{
    __shared__ double s[THREADS];
    double acc = 0.0;
    for (int i = threadIdx.x; i < m; i += blockDim.x) acc += part[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[0] = s[0];
}

extern "C" void dot(int n, const double* x, const double* y, double* out)
{
    int blocks = (n + THREADS - 1) / THREADS;
    if (blocks > 1024) blocks = 1024;
    double* part;
    cudaMalloc(&part, blocks * sizeof(double));
    partial_dot<<<blocks, THREADS>>>(n, x, y, part);
    final_sum<<<1, THREADS>>>(blocks, part, out);
    cudaFree(part);
}
