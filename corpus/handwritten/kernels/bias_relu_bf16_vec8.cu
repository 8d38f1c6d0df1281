// y = relu(x + bias[col]): 16-byte int4 loads of 8 bf16 values reinterpreted
// as __nv_bfloat162 lanes, fp32 math, grid-stride macro (cols % 8 == 0).
#include <cuda_bf16.h>

#define GRID_STRIDE_LOOP(i, n) \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += gridDim.x * blockDim.x)

extern "C" __global__ void bias_relu_vec8(const __nv_bfloat16* __restrict__ x,
                                          const __nv_bfloat16* __restrict__ bias,
                                          __nv_bfloat16* __restrict__ y, int rows, int cols)
{
    const int vec_cols = cols / 8;
    const int nvec = rows * vec_cols;
    const int4* x8 = reinterpret_cast<const int4*>(x);
    const int4* b8 = reinterpret_cast<const int4*>(bias);
    int4* y8 = reinterpret_cast<int4*>(y);

    GRID_STRIDE_LOOP(i, nvec) {
        const int4 xv = x8[i];
        const int4 bv = b8[i % vec_cols];
        const __nv_bfloat162* xh = reinterpret_cast<const __nv_bfloat162*>(&xv);
        const __nv_bfloat162* bh = reinterpret_cast<const __nv_bfloat162*>(&bv);
        int4 ov;
        __nv_bfloat162* oh = reinterpret_cast<__nv_bfloat162*>(&ov);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const float2 a = __bfloat1622float2(xh[k]);
            const float2 b = __bfloat1622float2(bh[k]);
            oh[k] = __floats2bfloat162_rn(fmaxf(a.x + b.x, 0.0f), fmaxf(a.y + b.y, 0.0f));
        }
        y8[i] = ov;
    }
}
