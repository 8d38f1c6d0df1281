// params: kind=scan_then_propagate tile=1024 block_x=1024 kernels=3
// Three kernels: scan each 1024-column tile of every row in a block (writing y and the tile total), scan the tile totals of each row with one warp per row, then add each tile's offset to y; expected good (all rows x tiles in flight at once, y written twice).
#include <algorithm>
#include <cuda_runtime.h>

// columns per tile = threads per block (one element each)
#define TILE 1024
// tile-total scan: one warp per row, 8 warps per block
#define ROWS_PER_BLOCK 8

// Inclusive scan of one value per thread over a 1024-thread block; returns the thread's
// inclusive prefix, *total gets the block total.
__device__ __forceinline__ float block_scan(float v, float* total)
{
    __shared__ float warps[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int o = 1; o < 32; o <<= 1) {
        float u = __shfl_up_sync(0xffffffffu, v, o);
        if (lane >= o) v += u;
    }
    if (lane == 31) warps[warp] = v;
    __syncthreads();
    if (warp == 0) {
        float t = warps[lane];                       // blockDim.x == 1024: 32 warp totals
        for (int o = 1; o < 32; o <<= 1) {
            float u = __shfl_up_sync(0xffffffffu, t, o);
            if (lane >= o) t += u;
        }
        warps[lane] = t;
    }
    __syncthreads();
    if (warp > 0) v += warps[warp - 1];
    *total = warps[31];
    return v;
}

// grid (ntiles, rows): the inclusive scan of tile blockIdx.x of row blockIdx.y.
__global__ void scan_tiles(int rows, int cols, int ntiles, const float* __restrict__ x, float* __restrict__ y,
                           float* __restrict__ sums)
{
    int r = blockIdx.y;
    int c = blockIdx.x * TILE + threadIdx.x;
    size_t base = (size_t)r * cols;
    float v = c < cols ? x[base + c] : 0.0f;
    float total;
    v = block_scan(v, &total);
    if (c < cols) y[base + c] = v;
    if (threadIdx.x == 0) sums[(size_t)r * ntiles + blockIdx.x] = total;
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

// grid (ntiles, rows): add the offset of everything left of the tile.
__global__ void add_tile_offsets(int rows, int cols, int ntiles, const float* __restrict__ sums, float* __restrict__ y)
{
    if (blockIdx.x == 0) return;
    int r = blockIdx.y;
    int c = blockIdx.x * TILE + threadIdx.x;
    if (c < cols) y[(size_t)r * cols + c] += sums[(size_t)r * ntiles + blockIdx.x];
}

extern "C" void cumsum_rows(int rows, int cols, const float* x, float* y)
{
    int ntiles = (cols + TILE - 1) / TILE;
    float* sums;
    cudaMalloc(&sums, (size_t)rows * ntiles * sizeof(float));
    dim3 grid(ntiles, rows);
    scan_tiles<<<grid, TILE>>>(rows, cols, ntiles, x, y, sums);
    scan_tile_sums<<<(rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, ROWS_PER_BLOCK * 32>>>(rows, ntiles, sums);
    add_tile_offsets<<<grid, TILE>>>(rows, cols, ntiles, sums, y);
    cudaFree(sums);
}
