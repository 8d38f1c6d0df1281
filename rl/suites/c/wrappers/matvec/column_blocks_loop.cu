// params: kind=column_blocks_host_loop col_block=2048 block_x=256
// A host loop over blocks of 2048 columns (8 launches at the largest size): each launch stages that slice of x in shared memory and gives every row one thread that adds its slice's dot product into y (the first launch writes); expected poor (a warp reads 32 different rows, uncoalesced like the naive port, plus launch overhead).
#include <algorithm>
#include <cuda_runtime.h>

#define THREADS 256
#define COL_BLOCK 2048

__global__ void matvec_column_block(int rows, int cols, int c0, int width, const float* __restrict__ a,
                                    const float* __restrict__ x, float* __restrict__ y)
{
    __shared__ float xs[COL_BLOCK];
    for (int j = threadIdx.x; j < width; j += blockDim.x) xs[j] = x[c0 + j];
    __syncthreads();
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* ar = a + (size_t)r * cols + c0;
    float acc = 0.0f;
    for (int j = 0; j < width; ++j) acc += ar[j] * xs[j];
    if (c0 == 0) y[r] = acc;
    else y[r] += acc;
}

extern "C" void matvec(int rows, int cols, const float* a, const float* x, float* y)
{
    for (int c0 = 0; c0 < cols; c0 += COL_BLOCK)
        matvec_column_block<<<(rows + THREADS - 1) / THREADS, THREADS>>>(rows, cols, c0, std::min(COL_BLOCK, cols - c0),
                                                                          a, x, y);
}
