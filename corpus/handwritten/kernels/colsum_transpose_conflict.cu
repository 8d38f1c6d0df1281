// Column sums by "transpose in shared memory, then reduce rows with a warp":
// the 32x32 tile has no padding, so warp ty reading tile[lane][j] hits one
// bank 32 times (32-way conflict). Block (32, 8) covers 32 columns and CHUNK
// rows; lane 0 of each warp adds its columns' sums into y (zeroed).
#define TILE 32
#define BLOCK_ROWS 8
#define CHUNK 256

extern "C" __global__ void __launch_bounds__(TILE * BLOCK_ROWS)
colsum_transpose_conflict(const float* x, float* y, int rows, int cols)
{
    __shared__ float tile[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int c0 = blockIdx.x * TILE;
    const int r_begin = blockIdx.y * CHUNK;
    const int r_end = min(r_begin + CHUNK, rows);
    float acc[TILE / BLOCK_ROWS] = {0.0f, 0.0f, 0.0f, 0.0f};

    for (int r0 = r_begin; r0 < r_end; r0 += TILE) {
        for (int k = 0; k < TILE; k += BLOCK_ROWS) {
            const int r = r0 + ty + k, c = c0 + tx;
            tile[ty + k][tx] = (r < r_end && c < cols) ? x[(size_t)r * cols + c] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < TILE / BLOCK_ROWS; ++k) {
            const int j = ty + k * BLOCK_ROWS;  // column of the tile this warp sums
            float v = tile[tx][j];              // 32 lanes, one bank
            for (int off = 16; off > 0; off >>= 1)
                v += __shfl_down_sync(0xffffffffu, v, off);
            acc[k] += v;
        }
        __syncthreads();
    }
    if (tx == 0) {
        for (int k = 0; k < TILE / BLOCK_ROWS; ++k) {
            const int c = c0 + ty + k * BLOCK_ROWS;
            if (c < cols) atomicAdd(&y[c], acc[k]);
        }
    }
}
