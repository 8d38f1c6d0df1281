// 64x64 block tiles of C staged in shared memory by a __device__ helper (4-byte half2
// copies), rows skewed by 8 halves so the fragment loads are conflict free; 4 warps,
// each a 32x32 quarter of the tile (2x2 fragments), on the tensor cores.
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define BM 64
#define BN 64
#define BK 32
#define SKEW 8
#define THREADS 128

__device__ __forceinline__ void stage_tiles(__half (*as)[BK + SKEW], __half (*bs)[BN + SKEW], const __half* A,
                                            const __half* B, int row0, int col0, int k0, int n, int k)
{
    for (int w = threadIdx.x; w < BM * BK / 2; w += THREADS) {     // BM rows of BK halves, 2 a copy
        const int r = w / (BK / 2), c = (w % (BK / 2)) * 2;
        *reinterpret_cast<__half2*>(&as[r][c]) = *reinterpret_cast<const __half2*>(A + (size_t)(row0 + r) * k + k0 + c);
    }
    for (int w = threadIdx.x; w < BK * BN / 2; w += THREADS) {
        const int r = w / (BN / 2), c = (w % (BN / 2)) * 2;
        *reinterpret_cast<__half2*>(&bs[r][c]) = *reinterpret_cast<const __half2*>(B + (size_t)(k0 + r) * n + col0 + c);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
hgemm_wmma_smem(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int m, int n, int k)
{
    __shared__ __align__(32) __half as[BM][BK + SKEW];
    __shared__ __align__(32) __half bs[BK][BN + SKEW];
    const int warp = threadIdx.x / 32;
    const int wr = (warp / 2) * 32, wc = (warp % 2) * 32;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    for (int k0 = 0; k0 < k; k0 += BK) {
        stage_tiles(as, bs, A, B, row0, col0, k0, n, k);
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[2];
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(a[i], &as[wr + 16 * i][kk], BK + SKEW);
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &bs[kk][wc + 16 * j], BN + SKEW);
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            wmma::store_matrix_sync(C + (size_t)(row0 + wr + 16 * i) * n + col0 + wc + 16 * j, acc[i][j], n,
                                    wmma::mem_row_major);
}
