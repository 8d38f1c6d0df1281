// params: kind=smem_private gridstride=1 vec=4 block_x=256
// launch: grid=(min(cdiv(n, 1024), 1056)) block=(256) smem=bins * 4
// Privatized, with 16-byte int4 key loads; block 0 covers the n % 4 tail.
extern "C" __global__ void histogram_smem_vec4(int n, int bins, const int* data, int* hist)
{
    extern __shared__ int local[];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    int n4 = n / 4;
    const int4* d4 = reinterpret_cast<const int4*>(data);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        int4 q = d4[i];
        atomicAdd(&local[q.x], 1);
        atomicAdd(&local[q.y], 1);
        atomicAdd(&local[q.z], 1);
        atomicAdd(&local[q.w], 1);
    }
    if (blockIdx.x == 0 && threadIdx.x < n - n4 * 4) atomicAdd(&local[data[n4 * 4 + threadIdx.x]], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x)
        if (local[b]) atomicAdd(&hist[b], local[b]);
}
