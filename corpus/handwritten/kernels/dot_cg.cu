// Dot product with cooperative groups: grid-stride loop, cg::reduce on each
// 32-thread tile, tile sums in dynamic shared memory (blockDim.x/32 floats),
// then the first tile reduces those and adds the block's sum atomically.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void dot_cg(const float* x, const float* y, float* out, int n)
{
    extern __shared__ float tile_sums[];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    const int nthreads = (int)block.size();
    const int stride = gridDim.x * nthreads;

    float acc = 0.0f;
    for (int i = blockIdx.x * nthreads + (int)block.thread_rank(); i < n; i += stride)
        acc += x[i] * y[i];
    acc = cg::reduce(tile, acc, cg::plus<float>());
    if (tile.thread_rank() == 0)
        tile_sums[tile.meta_group_rank()] = acc;
    block.sync();

    if (tile.meta_group_rank() == 0) {
        float v = tile.thread_rank() < tile.meta_group_size() ? tile_sums[tile.thread_rank()] : 0.0f;
        v = cg::reduce(tile, v, cg::plus<float>());
        if (tile.thread_rank() == 0)
            atomicAdd(out, v);
    }
}
