// 256-bin byte histogram, one global atomicAdd per input byte.
extern "C" __global__ void hist_global(const unsigned char* data, unsigned int* hist, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&hist[data[i]], 1u);
}
