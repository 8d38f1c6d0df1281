// RMSNorm, one block of BLOCK threads per row, cooperative-groups reductions:
// cg::reduce per warp tile, then tile 0 reduces the tile sums and publishes
// the inverse RMS through shared memory.
#include <cuda_fp16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_cg(const __half* x, const __half* w, __half* y, int rows, int cols, float eps)
{
    __shared__ float warp_ss[BLOCK / 32];
    __shared__ float s_inv;
    cg::thread_block cta = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cta);
    const int row = blockIdx.x;
    if (row >= rows) return;
    const __half* xr = x + (size_t)row * cols;
    __half* yr = y + (size_t)row * cols;

    float ss = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BLOCK) {
        const float v = __half2float(xr[c]);
        ss += v * v;
    }
    ss = cg::reduce(warp, ss, cg::plus<float>());
    if (warp.thread_rank() == 0) warp_ss[warp.meta_group_rank()] = ss;
    cta.sync();
    if (warp.meta_group_rank() == 0) {
        float v = warp.thread_rank() < BLOCK / 32 ? warp_ss[warp.thread_rank()] : 0.0f;
        v = cg::reduce(warp, v, cg::plus<float>());
        if (warp.thread_rank() == 0) s_inv = rsqrtf(v / cols + eps);
    }
    cta.sync();
    const float inv = s_inv;
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        yr[c] = __float2half(__half2float(xr[c]) * inv * __half2float(w[c]));
}

template __global__ void rmsnorm_cg<256>(const __half*, const __half*, __half*, int, int, float);
template __global__ void rmsnorm_cg<512>(const __half*, const __half*, __half*, int, int, float);
