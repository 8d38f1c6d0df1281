// params: kind=smem_private gridstride=1 block_x=1024
// launch: grid=(min(cdiv(n, 1024), 264)) block=(1024) smem=bins * 4
extern "C" __global__ void histogram_smem_gridstride_1024(int n, int bins, const int* data, int* hist)
{
    extern __shared__ int local[];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        if (local[b]) atomicAdd(&hist[b], local[b]);
}
