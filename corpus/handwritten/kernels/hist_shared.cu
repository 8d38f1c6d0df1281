// 256-bin byte histogram privatised per block in shared memory: grid-stride
// loop of shared atomics, then one global atomicAdd per non-empty bin.
#define NBINS 256

extern "C" __global__ void hist_shared(const unsigned char* __restrict__ data, unsigned int* __restrict__ hist, int n)
{
    __shared__ unsigned int local[NBINS];
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x) local[b] = 0;
    __syncthreads();

    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();

    for (int b = threadIdx.x; b < NBINS; b += blockDim.x) {
        const unsigned int c = local[b];
        if (c) atomicAdd(&hist[b], c);
    }
}
