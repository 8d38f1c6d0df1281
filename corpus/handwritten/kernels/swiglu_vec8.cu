// SwiGLU with a 2-D grid (blockIdx.y = row) and 16-byte int4 loads of 8 bf16
// gate and up values per thread (d % 8 == 0); block size as a template parameter.
#include <cuda_bf16.h>

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
swiglu_vec8(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ out, int rows, int d)
{
    const int r = blockIdx.y;
    const int v = blockIdx.x * BLOCK + threadIdx.x;  // chunk of 8 outputs in this row
    const int vec_d = d / 8;
    if (r >= rows || v >= vec_d) return;
    const int4* row = reinterpret_cast<const int4*>(x + (size_t)r * 2 * d);
    const int4 gv = row[v];
    const int4 uv = row[vec_d + v];
    const __nv_bfloat162* g2 = reinterpret_cast<const __nv_bfloat162*>(&gv);
    const __nv_bfloat162* u2 = reinterpret_cast<const __nv_bfloat162*>(&uv);
    int4 ov;
    __nv_bfloat162* o2 = reinterpret_cast<__nv_bfloat162*>(&ov);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        const float2 g = __bfloat1622float2(g2[k]);
        const float2 u = __bfloat1622float2(u2[k]);
        o2[k] = __floats2bfloat162_rn(g.x / (1.0f + expf(-g.x)) * u.x, g.y / (1.0f + expf(-g.y)) * u.y);
    }
    reinterpret_cast<int4*>(out + (size_t)r * d)[v] = ov;
}

template __global__ void swiglu_vec8<128>(const __nv_bfloat16* __restrict__, __nv_bfloat16* __restrict__, int, int);
template __global__ void swiglu_vec8<256>(const __nv_bfloat16* __restrict__, __nv_bfloat16* __restrict__, int, int);
