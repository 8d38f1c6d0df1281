// Row argmax with a 16-thread cooperative-groups tile per row and tile shuffles.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void argmax_tile16(const float* x, int* idx, int rows, int cols)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    const int row = blockIdx.x * (blockDim.x / 16) + (int)tile.meta_group_rank();
    if (row >= rows) return;
    const float* in = x + (size_t)row * cols;

    float best = -__int_as_float(0x7f800000);
    int bi = 0x7fffffff;
    for (int c = (int)tile.thread_rank(); c < cols; c += 16) {
        const float v = in[c];
        if (v > best) { best = v; bi = c; }
    }
    for (int off = 8; off > 0; off >>= 1) {
        const float ov = tile.shfl_down(best, off);
        const int oi = tile.shfl_down(bi, off);
        if (ov > best || (ov == best && oi < bi)) { best = ov; bi = oi; }
    }
    if (tile.thread_rank() == 0) idx[row] = bi;
}
