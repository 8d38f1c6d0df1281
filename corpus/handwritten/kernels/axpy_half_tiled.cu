// out = a*x + y, generic over the element type (instantiated for __half):
// each block handles BLOCK*ITEMS elements, unrolled and coalesced.
#include <cuda_fp16.h>

template <typename T, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
axpy_tiled(const T* __restrict__ x, const T* __restrict__ y, T* __restrict__ out, float a, int n)
{
    const int base = blockIdx.x * BLOCK * ITEMS + threadIdx.x;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int i = base + k * BLOCK;
        if (i < n)
            out[i] = T(a * float(x[i]) + float(y[i]));
    }
}

template __global__ void axpy_tiled<__half, 256, 4>(const __half* __restrict__, const __half* __restrict__, __half* __restrict__, float, int);
template __global__ void axpy_tiled<__half, 512, 2>(const __half* __restrict__, const __half* __restrict__, __half* __restrict__, float, int);
