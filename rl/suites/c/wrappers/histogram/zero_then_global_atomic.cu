// params: kind=zero_then_global_atomic block_x=256 kernels=2
// Two kernels mirroring the C code literally: a kernel zeroing hist, then one thread per key with a global atomicAdd each; expected poor (every key is a global atomic, heavily contended when bins are few).
#include <algorithm>
#include <cuda_runtime.h>

#define THREADS 256

__global__ void hist_zero(int bins, int* __restrict__ hist)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b < bins) hist[b] = 0;
}

__global__ void hist_global_atomic(int n, const int* __restrict__ data, int* __restrict__ hist)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[data[i]], 1);
}

extern "C" void histogram(int n, int bins, const int* data, int* hist)
{
    hist_zero<<<(bins + THREADS - 1) / THREADS, THREADS>>>(bins, hist);
    hist_global_atomic<<<(n + THREADS - 1) / THREADS, THREADS>>>(n, data, hist);
}
