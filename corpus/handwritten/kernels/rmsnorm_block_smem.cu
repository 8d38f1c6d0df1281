// RMSNorm over half rows, one block per row, sum of squares reduced in dynamic
// shared memory (blockDim.x floats, blockDim.x a power of 2).
#include <cuda_fp16.h>

extern "C" __global__ void rmsnorm_block(const half* __restrict__ x, const half* __restrict__ w,
                                         half* __restrict__ y, int rows, int cols, float eps)
{
    extern __shared__ float red[];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const half* xr = x + (size_t)row * cols;
    half* yr = y + (size_t)row * cols;

    float ss = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = __half2float(xr[c]);
        ss += v * v;
    }
    red[threadIdx.x] = ss;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    const float inv = rsqrtf(red[0] / (float)cols + eps);
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = __float2half(__half2float(xr[c]) * inv * __half2float(w[c]));
}
