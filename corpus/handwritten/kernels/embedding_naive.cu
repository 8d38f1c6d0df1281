// Embedding lookup (bf16 table), one thread per output element.
#include <cuda_bf16.h>

extern "C" __global__ void embedding_naive(const int* ids, const __nv_bfloat16* table, __nv_bfloat16* out,
                                           int tokens, int dim)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= tokens * dim) return;
    int t = i / dim;
    int d = i % dim;
    out[i] = table[(size_t)ids[t] * dim + d];
}
