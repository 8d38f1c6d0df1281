// out = a*x + y with half2 pairs and the paired fused multiply-add __hfma2;
// thread 0 also handles the odd last element.
#include <cuda_fp16.h>

extern "C" __global__ void axpy_half2(const __half* __restrict__ x, const __half* __restrict__ y,
                                      __half* __restrict__ out, float a, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;  // index of a pair
    const int n2 = n >> 1;
    if (i < n2) {
        const __half2 a2 = __float2half2_rn(a);
        const __half2 xv = reinterpret_cast<const __half2*>(x)[i];
        const __half2 yv = reinterpret_cast<const __half2*>(y)[i];
        reinterpret_cast<__half2*>(out)[i] = __hfma2(a2, xv, yv);
    }
    if (i == 0 && (n & 1))
        out[n - 1] = __float2half(a * __half2float(x[n - 1]) + __half2float(y[n - 1]));
}
