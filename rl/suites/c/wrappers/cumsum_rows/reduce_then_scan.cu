// params: kind=reduce_then_scan tile=1024 block_x=256 scan_block=1024 kernels=3
// Three kernels: sum each 1024-column tile of every row, scan the tile totals per row (one warp per row), then re-read x and scan each tile in a block starting from its offset; expected good (reads x twice, writes y once).
#include <algorithm>
#include <cuda_runtime.h>

// columns per tile
#define TILE 1024
// tile sums: 4 columns per thread
#define SUM_THREADS 256
#define ROWS_PER_BLOCK 8

// grid (ntiles, rows): the sum of tile blockIdx.x of row blockIdx.y.
__global__ void tile_sums(int rows, int cols, int ntiles, const float* __restrict__ x, float* __restrict__ sums)
{
    __shared__ float warps[SUM_THREADS / 32];
    size_t base = (size_t)blockIdx.y * cols;
    int c0 = blockIdx.x * TILE;
    float v = 0.0f;
    for (int j = threadIdx.x; j < TILE; j += SUM_THREADS) {
        int c = c0 + j;
        if (c < cols) v += x[base + c];
    }
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.0f;
        for (int w = 0; w < SUM_THREADS / 32; ++w) t += warps[w];
        sums[(size_t)blockIdx.y * ntiles + blockIdx.x] = t;
    }
}

// One warp per row: exclusive scan of the row's ntiles tile totals, in place.
__global__ void scan_tile_sums(int rows, int ntiles, float* __restrict__ sums)
{
    int lane = threadIdx.x & 31;
    int r = blockIdx.x * ROWS_PER_BLOCK + (threadIdx.x >> 5);
    if (r >= rows) return;
    float* s = sums + (size_t)r * ntiles;
    float carry = 0.0f;
    for (int t0 = 0; t0 < ntiles; t0 += 32) {
        int t = t0 + lane;
        float v = t < ntiles ? s[t] : 0.0f;
        float inc = v;
        for (int o = 1; o < 32; o <<= 1) {
            float u = __shfl_up_sync(0xffffffffu, inc, o);
            if (lane >= o) inc += u;
        }
        if (t < ntiles) s[t] = carry + inc - v;      // exclusive
        carry += __shfl_sync(0xffffffffu, inc, 31);
    }
}

// grid (ntiles, rows), 1024 threads: scan the tile and add its offset.
__global__ void scan_tiles_with_offset(int rows, int cols, int ntiles, const float* __restrict__ x,
                                       const float* __restrict__ sums, float* __restrict__ y)
{
    __shared__ float warps[32];
    size_t base = (size_t)blockIdx.y * cols;
    int c = blockIdx.x * TILE + threadIdx.x;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float v = c < cols ? x[base + c] : 0.0f;
    for (int o = 1; o < 32; o <<= 1) {
        float u = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += u;
    }
    if (lane == 31) warps[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float t = warps[lane];
        for (int o = 1; o < 32; o <<= 1) {
            float u = __shfl_up_sync(0xffffffffu, t, o);
            if (lane >= o) t += u;
        }
        warps[lane] = t;
    }
    __syncthreads();
    float offset = sums[(size_t)blockIdx.y * ntiles + blockIdx.x];
    if (warp > 0) v += warps[warp - 1];
    if (c < cols) y[base + c] = offset + v;
}

extern "C" void cumsum_rows(int rows, int cols, const float* x, float* y)
{
    int ntiles = (cols + TILE - 1) / TILE;
    float* sums;
    cudaMalloc(&sums, (size_t)rows * ntiles * sizeof(float));
    dim3 grid(ntiles, rows);
    tile_sums<<<grid, SUM_THREADS>>>(rows, cols, ntiles, x, sums);
    scan_tile_sums<<<(rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, ROWS_PER_BLOCK * 32>>>(rows, ntiles, sums);
    scan_tiles_with_offset<<<grid, TILE>>>(rows, cols, ntiles, x, sums, y);
    cudaFree(sums);
}
