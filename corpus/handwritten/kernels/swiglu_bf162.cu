// SwiGLU on __nv_bfloat162 pairs (d even): two outputs per thread, converted
// to float2 for the math and rounded back once.
#include <cuda_bf16.h>

__device__ __forceinline__ float silu(float g) { return g / (1.0f + expf(-g)); }

extern "C" __global__ void swiglu_bf162(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ out,
                                        int rows, int d)
{
    const int d2 = d >> 1;
    const int p = blockIdx.x * blockDim.x + threadIdx.x;  // index of an output pair
    if (p >= rows * d2) return;
    const int r = p / d2;
    const int c2 = p - r * d2;
    const __nv_bfloat162* row = reinterpret_cast<const __nv_bfloat162*>(x + (size_t)r * 2 * d);
    const float2 g = __bfloat1622float2(row[c2]);
    const float2 u = __bfloat1622float2(row[d2 + c2]);
    reinterpret_cast<__nv_bfloat162*>(out)[p] = __floats2bfloat162_rn(silu(g.x) * u.x, silu(g.y) * u.y);
}
