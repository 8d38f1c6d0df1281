// 256-bin byte histogram with one sub-histogram per warp in dynamic shared
// memory ((blockDim.x/32) * 256 uints), which cuts shared-atomic contention;
// the sub-histograms are summed per bin before the global atomicAdd.
#define NBINS 256

extern "C" __global__ void hist_per_warp(const unsigned char* __restrict__ data, unsigned int* __restrict__ hist, int n)
{
    extern __shared__ unsigned int sub[];
    const int nwarps = blockDim.x >> 5;
    for (int k = threadIdx.x; k < nwarps * NBINS; k += blockDim.x) sub[k] = 0;
    __syncthreads();

    unsigned int* mine = sub + (threadIdx.x >> 5) * NBINS;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&mine[data[i]], 1u);
    __syncthreads();

    for (int b = threadIdx.x; b < NBINS; b += blockDim.x) {
        unsigned int c = 0;
        for (int w = 0; w < nwarps; ++w) c += sub[w * NBINS + b];
        if (c) atomicAdd(&hist[b], c);
    }
}
