// Embedding lookup, one block per token copying the row as __nv_bfloat162
// pairs (dim even); the token id is read once per block.
#include <cuda_bf16.h>

extern "C" __global__ void embedding_block_per_token(const int* __restrict__ ids,
                                                     const __nv_bfloat16* __restrict__ table,
                                                     __nv_bfloat16* __restrict__ out, int tokens, int dim)
{
    const int t = blockIdx.x;
    if (t >= tokens) return;
    const int id = __ldg(ids + t);
    const __nv_bfloat162* src = reinterpret_cast<const __nv_bfloat162*>(table + (size_t)id * dim);
    __nv_bfloat162* dst = reinterpret_cast<__nv_bfloat162*>(out + (size_t)t * dim);
    for (int i = threadIdx.x; i < dim / 2; i += blockDim.x)
        dst[i] = src[i];
}
