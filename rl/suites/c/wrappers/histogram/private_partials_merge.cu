// params: kind=private_then_merge blocks=1056 block_x=256 merge_block=32x32
// Two kernels, no global atomics: each block counts its grid-stride share into a shared-memory histogram and writes the whole private copy to a scratch array, then a merge kernel sums the copies bin by bin into hist (every bin written); expected good (shared atomics only, merge reads blocks x bins ints).
#include <algorithm>
#include <cuda_runtime.h>

#define THREADS 256
// 8 blocks of 256 threads per SM on 132 SMs
#define MAX_BLOCKS 1056
// bins per merge block
#define MERGE_X 32
// partial histograms summed in parallel per bin
#define MERGE_Y 32

__global__ void hist_private(int n, int bins, const int* __restrict__ data, int* __restrict__ partial)
{
    extern __shared__ int local[];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1);
    __syncthreads();
    int* mine = partial + (size_t)blockIdx.x * bins;
    for (int b = threadIdx.x; b < bins; b += blockDim.x) mine[b] = local[b];
}

// grid cdiv(bins, 32), block (32, 32): threadIdx.x picks the bin, threadIdx.y strides over the copies.
__global__ void hist_merge(int bins, int copies, const int* __restrict__ partial, int* __restrict__ hist)
{
    __shared__ int acc[MERGE_Y][MERGE_X + 1];
    int b = blockIdx.x * MERGE_X + threadIdx.x;
    int s = 0;
    if (b < bins)
        for (int k = threadIdx.y; k < copies; k += MERGE_Y) s += partial[(size_t)k * bins + b];
    acc[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && b < bins) {
        int t = 0;
        for (int k = 0; k < MERGE_Y; ++k) t += acc[k][threadIdx.x];
        hist[b] = t;
    }
}

extern "C" void histogram(int n, int bins, const int* data, int* hist)
{
    int blocks = std::max(1, std::min((n + THREADS - 1) / THREADS, MAX_BLOCKS));
    int* partial;
    cudaMalloc(&partial, (size_t)blocks * bins * sizeof(int));
    hist_private<<<blocks, THREADS, bins * sizeof(int)>>>(n, bins, data, partial);
    hist_merge<<<(bins + MERGE_X - 1) / MERGE_X, dim3(MERGE_X, MERGE_Y)>>>(bins, blocks, partial, hist);
    cudaFree(partial);
}
