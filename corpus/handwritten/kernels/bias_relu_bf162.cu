// y = relu(x + bias[col]) on __nv_bfloat162 pairs with native bf16 add/max
// (cols must be even so pairs never straddle rows).
#include <cuda_bf16.h>

extern "C" __global__ void bias_relu_bf162(const __nv_bfloat16* __restrict__ x,
                                           const __nv_bfloat16* __restrict__ bias,
                                           __nv_bfloat16* __restrict__ y, int rows, int cols)
{
    const int half_cols = cols >> 1;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;  // index of a pair
    if (i >= rows * half_cols) return;
    const __nv_bfloat162 v = reinterpret_cast<const __nv_bfloat162*>(x)[i];
    const __nv_bfloat162 b = reinterpret_cast<const __nv_bfloat162*>(bias)[i % half_cols];
    const __nv_bfloat162 zero = __float2bfloat162_rn(0.0f);
    reinterpret_cast<__nv_bfloat162*>(y)[i] = __hmax2(__hadd2(v, b), zero);
}
