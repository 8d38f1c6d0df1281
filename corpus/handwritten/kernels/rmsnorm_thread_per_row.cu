// RMSNorm over half rows, one thread per row, fp32 accumulation: two passes
// over the row with uncoalesced (row-strided) loads.
#include <cuda_fp16.h>

extern "C" __global__ void rmsnorm_thread_per_row(const half* x, const half* w, half* y,
                                                  int rows, int cols, float eps)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const half* xr = x + (size_t)r * cols;
    half* yr = y + (size_t)r * cols;

    float ss = 0.0f;
    for (int c = 0; c < cols; ++c) {
        float v = __half2float(xr[c]);
        ss += v * v;
    }
    float inv = rsqrtf(ss / cols + eps);
    for (int c = 0; c < cols; ++c)
        yr[c] = __float2half(__half2float(xr[c]) * inv * __half2float(w[c]));
}
