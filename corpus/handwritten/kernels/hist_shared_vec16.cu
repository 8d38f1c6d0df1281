// 256-bin byte histogram: each thread loads 16 bytes at a time as an int4 and
// unpacks them with shifts into a shared-memory histogram; scalar tail loop.
#define NBINS 256

extern "C" __global__ void hist_shared_vec16(const unsigned char* __restrict__ data, unsigned int* __restrict__ hist, int n)
{
    __shared__ unsigned int local[NBINS];
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x) local[b] = 0;
    __syncthreads();

    const int stride = gridDim.x * blockDim.x;
    const int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    const int nvec = n / 16;
    const int4* d4 = reinterpret_cast<const int4*>(data);
    for (int v = gtid; v < nvec; v += stride) {
        const int4 q = d4[v];
        const unsigned int w[4] = {(unsigned int)q.x, (unsigned int)q.y, (unsigned int)q.z, (unsigned int)q.w};
#pragma unroll
        for (int k = 0; k < 4; ++k) {
#pragma unroll
            for (int b = 0; b < 4; ++b)
                atomicAdd(&local[(w[k] >> (8 * b)) & 0xFFu], 1u);
        }
    }
    for (int i = nvec * 16 + gtid; i < n; i += stride)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();

    for (int b = threadIdx.x; b < NBINS; b += blockDim.x) {
        const unsigned int c = local[b];
        if (c) atomicAdd(&hist[b], c);
    }
}
