// params: kind=hillis_steele_passes block_x=256
// The textbook Hillis-Steele scan in global memory: ceil(log2(cols)) passes (15 at the largest size), each adding the element `off` columns to the left, ping-ponging between y and a full-size scratch matrix; expected poor (every pass reads and writes the whole matrix).
#include <algorithm>
#include <cuda_runtime.h>

#define THREADS 256

// grid (cdiv(cols, 256), rows): dst[r][c] = src[r][c] + src[r][c - off] (c >= off).
__global__ void hs_pass(int rows, int cols, int off, const float* __restrict__ src, float* __restrict__ dst)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    size_t p = (size_t)blockIdx.y * cols + c;
    float v = src[p];
    if (c >= off) v += src[p - off];
    dst[p] = v;
}

extern "C" void cumsum_rows(int rows, int cols, const float* x, float* y)
{
    int passes = 1;                                  // offsets 1, 2, 4, ... below cols (one pass at least)
    while ((1LL << passes) < (long long)cols) ++passes;
    float* tmp;
    cudaMalloc(&tmp, (size_t)rows * cols * sizeof(float));
    dim3 grid((cols + THREADS - 1) / THREADS, rows);
    const float* src = x;
    float* dst = (passes % 2 == 1) ? y : tmp;       // so that the last pass writes y
    for (int p = 0; p < passes; ++p) {
        hs_pass<<<grid, THREADS>>>(rows, cols, 1 << p, src, dst);
        src = dst;
        dst = (dst == y) ? tmp : y;
    }
    cudaFree(tmp);
}
