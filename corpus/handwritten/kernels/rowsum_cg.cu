// Row sums with cooperative groups: a 32-thread tile per row and cg::reduce.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void rowsum_cg(const float* x, float* y, int rows, int cols)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    const int tiles_per_block = (int)tile.meta_group_size();
    const int row = blockIdx.x * tiles_per_block + (int)tile.meta_group_rank();
    if (row >= rows) return;

    const float* in = x + (size_t)row * cols;
    float acc = 0.0f;
    for (int c = (int)tile.thread_rank(); c < cols; c += 32)
        acc += in[c];
    acc = cg::reduce(tile, acc, cg::plus<float>());
    if (tile.thread_rank() == 0)
        y[row] = acc;
}
