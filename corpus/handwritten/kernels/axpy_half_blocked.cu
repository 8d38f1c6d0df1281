// out = a*x + y where the vector is cut into one contiguous chunk per thread:
// the obvious CPU-style partition, uncoalesced on a GPU (neighbouring threads
// are a whole chunk apart).
#include <cuda_fp16.h>

extern "C" __global__ void axpy_half_blocked(const __half* x, const __half* y, __half* out, float a, int n)
{
    const int nthreads = gridDim.x * blockDim.x;
    const int chunk = (n + nthreads - 1) / nthreads;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int begin = t * chunk;
    const int end = min(begin + chunk, n);
    for (int i = begin; i < end; ++i)
        out[i] = __float2half(a * __half2float(x[i]) + __half2float(y[i]));
}
