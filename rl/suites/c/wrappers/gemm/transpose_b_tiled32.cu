// params: kind=transpose_then_tiled tile=32 block_x=32 block_y=32 transpose_block_y=8
// Two kernels: transpose B (k x n) into a scratch Bt (n x k) through a padded shared tile, then a 32x32 shared-memory tiled product reading rows of A and rows of Bt (one C element per thread); expected fair (the extra pass is cheap, but one output per thread leaves it shared-memory bound).
#include <algorithm>
#include <cuda_runtime.h>

#define TILE 32
// transpose: 32x8 threads move a 32x32 tile
#define TROWS 8

// grid (cdiv(cols, 32), cdiv(rows, 32)), block (32, 8): out (cols x rows) = in (rows x cols)^T
__global__ void transpose_tile(int rows, int cols, const float* __restrict__ in, float* __restrict__ out)
{
    __shared__ float t[TILE][TILE + 1];
    int c = blockIdx.x * TILE + threadIdx.x;
    for (int j = threadIdx.y; j < TILE; j += TROWS) {
        int r = blockIdx.y * TILE + j;
        if (r < rows && c < cols) t[j][threadIdx.x] = in[(size_t)r * cols + c];
    }
    __syncthreads();
    int r = blockIdx.y * TILE + threadIdx.x;           // becomes the column of out
    for (int j = threadIdx.y; j < TILE; j += TROWS) {
        int oc = blockIdx.x * TILE + j;                 // row of out
        if (oc < cols && r < rows) out[(size_t)oc * rows + r] = t[threadIdx.x][j];
    }
}

// grid (cdiv(n, 32), cdiv(m, 32)), block (32, 32): C[i][j] = sum_p A[i][p] Bt[j][p]
__global__ void gemm_abt_tiled(int m, int n, int k, const float* __restrict__ A, const float* __restrict__ Bt,
                               float* __restrict__ C)
{
    __shared__ float As[TILE][TILE + 1];
    __shared__ float Bs[TILE][TILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;                   // row of C (and of A)
    int col = blockIdx.x * TILE + tx;                   // column of C
    int brow = blockIdx.x * TILE + ty;                  // row of Bt this thread loads
    float acc = 0.0f;
    for (int p0 = 0; p0 < k; p0 += TILE) {
        int p = p0 + tx;
        As[ty][tx] = (row < m && p < k) ? A[(size_t)row * k + p] : 0.0f;
        Bs[ty][tx] = (brow < n && p < k) ? Bt[(size_t)brow * k + p] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int q = 0; q < TILE; ++q) acc += As[ty][q] * Bs[tx][q];
        __syncthreads();
    }
    if (row < m && col < n) C[(size_t)row * n + col] = acc;
}

extern "C" void gemm(int m, int n, int k, const float* a, const float* b, float* c)
{
    float* bt;
    cudaMalloc(&bt, (size_t)n * k * sizeof(float));
    dim3 tgrid((n + TILE - 1) / TILE, (k + TILE - 1) / TILE);
    transpose_tile<<<tgrid, dim3(TILE, TROWS)>>>(k, n, b, bt);
    dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
    gemm_abt_tiled<<<grid, dim3(TILE, TILE)>>>(m, n, k, a, bt, c);
    cudaFree(bt);
}
