// params: kind=transpose_then_rowdot block_x=16 block_y=16 transpose_block_y=8
// Two kernels: transpose B into a scratch Bt so that every C element is a dot product of two contiguous rows (A row i, Bt row j), one thread per element straight from global memory; expected poor (neighbouring threads read Bt rows k floats apart, so the "contiguous" reads are uncoalesced).
#include <algorithm>
#include <cuda_runtime.h>

#define TILE 32
#define TROWS 8
#define BX 16
#define BY 16

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
    int r = blockIdx.y * TILE + threadIdx.x;
    for (int j = threadIdx.y; j < TILE; j += TROWS) {
        int oc = blockIdx.x * TILE + j;
        if (oc < cols && r < rows) out[(size_t)oc * rows + r] = t[threadIdx.x][j];
    }
}

// grid (cdiv(n, 16), cdiv(m, 16)), block (16, 16): one C element per thread.
__global__ void gemm_rowdot(int m, int n, int k, const float* __restrict__ A, const float* __restrict__ Bt,
                            float* __restrict__ C)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    const float* ar = A + (size_t)row * k;
    const float* br = Bt + (size_t)col * k;
    float acc = 0.0f;
    for (int p = 0; p < k; ++p) acc += ar[p] * br[p];
    C[(size_t)row * n + col] = acc;
}

extern "C" void gemm(int m, int n, int k, const float* a, const float* b, float* c)
{
    float* bt;
    cudaMalloc(&bt, (size_t)n * k * sizeof(float));
    dim3 tgrid((n + TILE - 1) / TILE, (k + TILE - 1) / TILE);
    transpose_tile<<<tgrid, dim3(TILE, TROWS)>>>(k, n, b, bt);
    dim3 grid((n + BX - 1) / BX, (m + BY - 1) / BY);
    gemm_rowdot<<<grid, dim3(BX, BY)>>>(m, n, k, a, bt, c);
    cudaFree(bt);
}
