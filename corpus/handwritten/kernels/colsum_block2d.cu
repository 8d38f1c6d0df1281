// Column sums with 2-D blocks: a block covers 32 columns and ROWS_PER_BLOCK
// rows, threadIdx.y strides down the rows, partials meet in a padded shared
// tile and row 0 of the block adds them atomically into y (zeroed).
// blockDim = (32, <=32).
#define ROWS_PER_BLOCK 256

extern "C" __global__ void colsum_block2d(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    __shared__ float part[32][33];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int c = blockIdx.x * 32 + tx;
    const int r0 = blockIdx.y * ROWS_PER_BLOCK;
    const int r1 = min(r0 + ROWS_PER_BLOCK, rows);

    float acc = 0.0f;
    if (c < cols)
        for (int r = r0 + ty; r < r1; r += blockDim.y)
            acc += x[(size_t)r * cols + c];
    part[ty][tx] = acc;
    __syncthreads();
    if (ty == 0 && c < cols) {
        float s = 0.0f;
        for (int k = 0; k < (int)blockDim.y; ++k) s += part[k][tx];
        atomicAdd(&y[c], s);
    }
}
