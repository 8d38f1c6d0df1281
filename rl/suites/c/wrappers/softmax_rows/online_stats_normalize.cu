// params: kind=online_then_normalize stats_block_x=256 rows_per_block=8 block_x=256 kernels=2
// Two kernels: one warp per row computes the max and the sum of expf in a single online pass (rescaling the sum when the max grows) into scratch, then an elementwise kernel writes expf(x - max) / sum; expected fair-to-good (x read twice, two launches).
#include <algorithm>
#include <cuda_runtime.h>
#include <math.h>

#define THREADS 256
// stats: one warp per row
#define ROWS_PER_BLOCK 8

// Merge (m, s) with (m2, s2): s is a sum of expf(v - m).
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2)
{
    float nm = fmaxf(m, m2);
    float a = (m == -INFINITY) ? 0.0f : s * expf(m - nm);
    float b = (m2 == -INFINITY) ? 0.0f : s2 * expf(m2 - nm);
    m = nm;
    s = a + b;
}

__global__ void row_stats_online(int rows, int cols, const float* __restrict__ x, float* __restrict__ mx,
                                 float* __restrict__ inv)
{
    int lane = threadIdx.x & 31;
    int r = blockIdx.x * ROWS_PER_BLOCK + (threadIdx.x >> 5);
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = xr[c];
        if (v > m) {
            s = (m == -INFINITY ? 0.0f : s * expf(m - v)) + 1.0f;
            m = v;
        } else {
            s += expf(v - m);
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, o);
        float s2 = __shfl_xor_sync(0xffffffffu, s, o);
        merge(m, s, m2, s2);
    }
    if (lane == 0) {
        mx[r] = m;
        inv[r] = 1.0f / s;
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
    row_stats_online<<<(rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, ROWS_PER_BLOCK * 32>>>(rows, cols, x, mx, inv);
    dim3 grid((cols + THREADS - 1) / THREADS, rows);
    normalize<<<grid, THREADS>>>(rows, cols, x, mx, inv, y);
    cudaFree(stats);
}
