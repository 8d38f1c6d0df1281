// params: kind=split_columns splits=4 block_x=256 rows_per_block=8 kernels=2
// Two kernels: the columns split in 4 chunks, a warp per (row, chunk) writes a partial dot product to scratch (4 x rows floats), then one thread per row adds the 4 partials into y; expected good (4x the warps of a warp per row, a tiny second pass).
#include <algorithm>
#include <cuda_runtime.h>

#define THREADS 256
#define ROWS_PER_BLOCK (THREADS / 32)
#define SPLITS 4

// grid (SPLITS, cdiv(rows, 8)): warp w of block (s, b) does row b*8+w over columns [s*chunk, (s+1)*chunk).
__global__ void matvec_partial(int rows, int cols, int chunk, const float* __restrict__ a,
                               const float* __restrict__ x, float* __restrict__ part)
{
    int lane = threadIdx.x & 31;
    int r = blockIdx.y * ROWS_PER_BLOCK + (threadIdx.x >> 5);
    if (r >= rows) return;
    int c0 = blockIdx.x * chunk;
    int c1 = min(cols, c0 + chunk);
    const float* ar = a + (size_t)r * cols;
    float acc = 0.0f;
    for (int j = c0 + lane; j < c1; j += 32) acc += ar[j] * x[j];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) part[(size_t)blockIdx.x * rows + r] = acc;
}

__global__ void matvec_combine(int rows, const float* __restrict__ part, float* __restrict__ y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < SPLITS; ++k) s += part[(size_t)k * rows + r];
    y[r] = s;
}

extern "C" void matvec(int rows, int cols, const float* a, const float* x, float* y)
{
    int chunk = (cols + SPLITS - 1) / SPLITS;
    float* part;
    cudaMalloc(&part, (size_t)SPLITS * rows * sizeof(float));
    dim3 grid(SPLITS, (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
    matvec_partial<<<grid, THREADS>>>(rows, cols, chunk, a, x, part);
    matvec_combine<<<(rows + THREADS - 1) / THREADS, THREADS>>>(rows, part, y);
    cudaFree(part);
}
