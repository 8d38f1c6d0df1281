// SwiGLU with a grid-stride macro and fast intrinsics (__expf, __fdividef).
#include <cuda_bf16.h>

#define CUDA_1D_KERNEL_LOOP(i, n) \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

extern "C" __global__ void swiglu_fast(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ out,
                                       int rows, int d)
{
    CUDA_1D_KERNEL_LOOP(i, rows * d) {
        const int r = i / d;
        const int c = i - r * d;
        const __nv_bfloat16* row = x + (size_t)r * 2 * d;
        const float g = __bfloat162float(row[c]);
        const float u = __bfloat162float(row[d + c]);
        out[i] = __float2bfloat16(__fdividef(g, 1.0f + __expf(-g)) * u);
    }
}
