// params: kind=tiled_regblock tile_m=64 tile_n=64 tile_k=16 per_thread=4x4 block_x=16 block_y=16
// One launch of a 64x64-tile kernel: A and B tiles of 16 columns/rows staged in shared memory, each of 256 threads accumulating a 4x4 block of C in registers; expected good (high arithmetic intensity per shared-memory load).
#include <algorithm>
#include <cuda_runtime.h>

#define BM 64
#define BN 64
#define BK 16
// threads along n
#define TX 16
// threads along m
#define TY 16

__global__ void __launch_bounds__(TX * TY)
gemm_tile64(int m, int n, int k, const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C)
{
    __shared__ float As[BK][BM + 4];   // A tile stored transposed: As[p][i]
    __shared__ float Bs[BK][BN];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * TX + tx;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;

    for (int p0 = 0; p0 < k; p0 += BK) {
#pragma unroll
        for (int l = 0; l < 4; ++l) {                 // A tile: 64 rows x 16 columns
            int e = tid + l * TX * TY;
            int r = e / BK, cc = e % BK;
            int gr = row0 + r, gc = p0 + cc;
            As[cc][r] = (gr < m && gc < k) ? A[(size_t)gr * k + gc] : 0.0f;
        }
#pragma unroll
        for (int l = 0; l < 4; ++l) {                 // B tile: 16 rows x 64 columns
            int e = tid + l * TX * TY;
            int r = e / BN, cc = e % BN;
            int gr = p0 + r, gc = col0 + cc;
            Bs[r][cc] = (gr < k && gc < n) ? B[(size_t)gr * n + gc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < BK; ++p) {
            float av[4], bv[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) av[i] = As[p][ty + i * TY];
#pragma unroll
            for (int j = 0; j < 4; ++j) bv[j] = Bs[p][tx + j * TX];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        int r = row0 + ty + i * TY;
        if (r >= m) continue;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            int c = col0 + tx + j * TX;
            if (c < n) C[(size_t)r * n + c] = acc[i][j];
        }
    }
}

extern "C" void gemm(int m, int n, int k, const float* a, const float* b, float* c)
{
    dim3 block(TX, TY);
    dim3 grid((n + BN - 1) / BN, (m + BM - 1) / BM);
    gemm_tile64<<<grid, block>>>(m, n, k, a, b, c);
}
