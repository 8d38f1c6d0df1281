// y = A x, each 32-thread cooperative-groups tile computes ROWS_PER_TILE rows
// at once so every x element it loads is reused ROWS_PER_TILE times;
// cg::reduce per row at the end.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

#define ROWS_PER_TILE 4

extern "C" __global__ void gemv_cg_multirow(const float* __restrict__ A, const float* __restrict__ x,
                                            float* __restrict__ y, int rows, int cols)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    const int tiles_per_block = (int)tile.meta_group_size();
    const int row0 = (blockIdx.x * tiles_per_block + (int)tile.meta_group_rank()) * ROWS_PER_TILE;
    if (row0 >= rows) return;

    float acc[ROWS_PER_TILE];
#pragma unroll
    for (int k = 0; k < ROWS_PER_TILE; ++k) acc[k] = 0.0f;

    for (int c = (int)tile.thread_rank(); c < cols; c += 32) {
        const float xv = x[c];
#pragma unroll
        for (int k = 0; k < ROWS_PER_TILE; ++k)
            if (row0 + k < rows) acc[k] += A[(size_t)(row0 + k) * cols + c] * xv;
    }
#pragma unroll
    for (int k = 0; k < ROWS_PER_TILE; ++k) {
        const float s = cg::reduce(tile, acc[k], cg::plus<float>());
        if (tile.thread_rank() == 0 && row0 + k < rows) y[row0 + k] = s;
    }
}
