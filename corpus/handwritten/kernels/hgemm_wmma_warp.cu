// One warp a 16x16 tile of C on the tensor cores, its fragments loaded straight from
// global memory (nvcuda::wmma spelled out, no using-directive); WARPS warps a block,
// side by side along n.
#include <cuda_fp16.h>
#include <mma.h>

#define WARPS 4

extern "C" __global__ void __launch_bounds__(32 * WARPS)
hgemm_wmma_warp(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C,
                int m, int n, int k)
{
    const int warp = threadIdx.x >> 5;
    const int tile_row = blockIdx.y * 16;
    const int tile_col = (blockIdx.x * WARPS + warp) * 16;
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, __half, nvcuda::wmma::row_major> a;
    nvcuda::wmma::fragment<nvcuda::wmma::matrix_b, 16, 16, 16, __half, nvcuda::wmma::row_major> b;
    nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, float> c;
    nvcuda::wmma::fill_fragment(c, 0.0f);
    for (int i = 0; i < k; i += 16) {
        nvcuda::wmma::load_matrix_sync(a, A + (size_t)tile_row * k + i, k);
        nvcuda::wmma::load_matrix_sync(b, B + (size_t)i * n + tile_col, n);
        nvcuda::wmma::mma_sync(c, a, b, c);
    }
    nvcuda::wmma::store_matrix_sync(C + (size_t)tile_row * n + tile_col, c, n, nvcuda::wmma::mem_row_major);
}
