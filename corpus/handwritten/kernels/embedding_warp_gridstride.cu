// Embedding lookup, warps grid-striding over tokens: lane 0 reads the id and
// broadcasts it with a shuffle, the warp copies the row as int4 (dim % 8 == 0).
#include <cuda_bf16.h>

#define WARPS_PER_BLOCK (blockDim.x / 32)

extern "C" __global__ void embedding_warp_gridstride(const int* __restrict__ ids,
                                                     const __nv_bfloat16* __restrict__ table,
                                                     __nv_bfloat16* __restrict__ out, int tokens, int dim)
{
    const int lane = threadIdx.x & 31;
    const int warp = blockIdx.x * WARPS_PER_BLOCK + threadIdx.x / 32;
    const int nwarps = gridDim.x * WARPS_PER_BLOCK;
    const int vec_dim = dim / 8;
    for (int t = warp; t < tokens; t += nwarps) {
        int id = 0;
        if (lane == 0) id = ids[t];
        id = __shfl_sync(0xffffffffu, id, 0);
        const int4* src = reinterpret_cast<const int4*>(table + (size_t)id * dim);
        int4* dst = reinterpret_cast<int4*>(out + (size_t)t * dim);
        for (int v = lane; v < vec_dim; v += 32)
            dst[v] = src[v];
    }
}
