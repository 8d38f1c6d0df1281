// params: kind=two_pass gridstride=0 block_x=256 final_block=256
// One thread per element writing one partial per block (cdiv(n, 256) partials, 262144 at the largest size), then a single 256-thread block loops over all of them; expected poor-to-fair (the serial final pass over a large scratch array is slow).
#include <algorithm>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void dot_block_partials(int n, const double* __restrict__ x, const double* __restrict__ y,
                                   double* __restrict__ part)
{
    __shared__ double s[THREADS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] * y[i] : 0.0;
    __syncthreads();
    for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) part[blockIdx.x] = s[0];
}

__global__ void dot_sum_partials(int m, const double* __restrict__ part, double* __restrict__ out)
{
    __shared__ double s[THREADS];
    double v = 0.0;
    for (int i = threadIdx.x; i < m; i += THREADS) v += part[i];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int stride = THREADS / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[0] = s[0];
}

extern "C" void dot(int n, const double* x, const double* y, double* out)
{
    int blocks = std::max(1, (n + THREADS - 1) / THREADS);
    double* part;
    cudaMalloc(&part, (size_t)blocks * sizeof(double));
    dot_block_partials<<<blocks, THREADS>>>(n, x, y, part);
    dot_sum_partials<<<1, THREADS>>>(blocks, part, out);
    cudaFree(part);
}
