// Embedding lookup copying 8 bf16 values (16 bytes) per thread as int4
// (dim % 8 == 0 keeps rows 16-byte aligned).
#include <cuda_bf16.h>

extern "C" __global__ void embedding_vec8(const int* __restrict__ ids, const __nv_bfloat16* __restrict__ table,
                                          __nv_bfloat16* __restrict__ out, int tokens, int dim)
{
    const int vec_dim = dim / 8;
    const int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= tokens * vec_dim) return;
    const int t = v / vec_dim;
    const int dv = v - t * vec_dim;
    const int4* src = reinterpret_cast<const int4*>(table + (size_t)__ldg(ids + t) * dim);
    reinterpret_cast<int4*>(out)[v] = src[dv];
}
