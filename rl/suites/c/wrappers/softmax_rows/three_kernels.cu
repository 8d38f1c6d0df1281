// params: kind=separate_passes block_x=256 kernels=3
// Three kernels as in the C code: a block per row for the row max, a block per row for the sum of expf(x - max) (storing 1/sum), then an elementwise normalize over a 2-D grid; expected fair (x is read three times from DRAM at the large sizes instead of once).
#include <algorithm>
#include <cuda_runtime.h>
#include <math.h>

#define THREADS 256

__global__ void row_max(int rows, int cols, const float* __restrict__ x, float* __restrict__ mx)
{
    __shared__ float warps[THREADS / 32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += THREADS) m = fmaxf(m, xr[c]);
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warps[warp] = m;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = warps[0];
        for (int w = 1; w < THREADS / 32; ++w) t = fmaxf(t, warps[w]);
        mx[blockIdx.x] = t;
    }
}

__global__ void row_inv_sum(int rows, int cols, const float* __restrict__ x, const float* __restrict__ mx,
                            float* __restrict__ inv)
{
    __shared__ float warps[THREADS / 32];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float m = mx[blockIdx.x];
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += THREADS) s += expf(xr[c] - m);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warps[warp] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int w = 0; w < THREADS / 32; ++w) t += warps[w];
        inv[blockIdx.x] = 1.0f / t;
    }
}

// grid (cdiv(cols, 256), rows)
__global__ void normalize(int rows, int cols, const float* __restrict__ x, const float* __restrict__ mx,
                          const float* __restrict__ inv, float* __restrict__ y)
{
    int c = blockIdx.x * THREADS + threadIdx.x;
    if (c >= cols) return;
    int r = blockIdx.y;
    size_t p = (size_t)r * cols + c;
    y[p] = expf(x[p] - mx[r]) * inv[r];
}

extern "C" void softmax_rows(int rows, int cols, const float* x, float* y)
{
    float* stats;
    cudaMalloc(&stats, 2 * (size_t)rows * sizeof(float));
    float* mx = stats;
    float* inv = stats + rows;
    row_max<<<rows, THREADS>>>(rows, cols, x, mx);
    row_inv_sum<<<rows, THREADS>>>(rows, cols, x, mx, inv);
    dim3 grid((cols + THREADS - 1) / THREADS, rows);
    normalize<<<grid, THREADS>>>(rows, cols, x, mx, inv, y);
    cudaFree(stats);
}
