// BM x BN block tiles of C (8 warps in a 2 x 4 grid), staged with 16-byte int4 copies
// into unpadded shared tiles: the fragment loads' rows are 64 and 2 * BN bytes apart,
// so the 8 rows of each LDSM matrix share banks.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

template <int BM, int BN>
__global__ void __launch_bounds__(256)
hgemm_wmma_t(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int m, int n, int k)
{
    constexpr int BK = 32;
    constexpr int FM = BM / 2 / 16, FN = BN / 4 / 16;
    __shared__ __align__(32) __half as[BM * BK];
    __shared__ __align__(32) __half bs[BK * BN];
    const int tid = threadIdx.x, warp = tid >> 5;
    const int wr = (warp >> 2) * (BM / 2), wc = (warp & 3) * (BN / 4);
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    for (int k0 = 0; k0 < k; k0 += BK) {
        for (int v = tid; v < BM * BK / 8; v += 256) {
            const int r = v / (BK / 8), c = (v % (BK / 8)) * 8;
            reinterpret_cast<int4*>(as)[v] = *reinterpret_cast<const int4*>(A + (size_t)(row0 + r) * k + k0 + c);
        }
        for (int v = tid; v < BK * BN / 8; v += 256) {
            const int r = v / (BN / 8), c = (v % (BN / 8)) * 8;
            reinterpret_cast<int4*>(bs)[v] = *reinterpret_cast<const int4*>(B + (size_t)(k0 + r) * n + col0 + c);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[FM];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[FN];
#pragma unroll
            for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(a[i], as + (wr + 16 * i) * BK + kk, BK);
#pragma unroll
            for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(b[j], bs + kk * BN + wc + 16 * j, BN);
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j)
            wmma::store_matrix_sync(C + (size_t)(row0 + wr + 16 * i) * n + col0 + wc + 16 * j, acc[i][j], n,
                                    wmma::mem_row_major);
}

template __global__ void hgemm_wmma_t<128, 128>(const __half* __restrict__, const __half* __restrict__,
                                                float* __restrict__, int, int, int);
