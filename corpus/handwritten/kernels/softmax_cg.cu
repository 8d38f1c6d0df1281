// Row softmax, one block per row, cooperative-groups reductions (cg::greater
// for the max, cg::plus for the sum); per-tile partials in dynamic shared
// memory (blockDim.x/32 floats) and the results broadcast through it.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void softmax_cg(const float* x, float* y, int rows, int cols)
{
    extern __shared__ float partials[];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    const int row = blockIdx.x;
    if (row >= rows) return;
    const int tid = (int)block.thread_rank();
    const int nthreads = (int)block.size();
    const int ntiles = nthreads / 32;
    const float* in = x + (size_t)row * cols;
    float* out = y + (size_t)row * cols;

    float m = -__int_as_float(0x7f800000);
    for (int c = tid; c < cols; c += nthreads) m = fmaxf(m, in[c]);
    m = cg::reduce(tile, m, cg::greater<float>());
    if (tile.thread_rank() == 0) partials[tile.meta_group_rank()] = m;
    block.sync();
    m = (int)tile.thread_rank() < ntiles ? partials[tile.thread_rank()] : -__int_as_float(0x7f800000);
    m = cg::reduce(tile, m, cg::greater<float>());  // every tile computes the row max
    block.sync();                                    // partials is reused below

    float s = 0.0f;
    for (int c = tid; c < cols; c += nthreads) s += expf(in[c] - m);
    s = cg::reduce(tile, s, cg::plus<float>());
    if (tile.thread_rank() == 0) partials[tile.meta_group_rank()] = s;
    block.sync();
    s = (int)tile.thread_rank() < ntiles ? partials[tile.thread_rank()] : 0.0f;
    s = cg::reduce(tile, s, cg::plus<float>());

    const float inv = 1.0f / s;
    for (int c = tid; c < cols; c += nthreads) out[c] = expf(in[c] - m) * inv;
}
