// Naive port: one thread per element, 16x16 blocks: the read x[i][j] is coalesced, the write
// y[j][i] strides by ROWS floats across a warp.
extern "C" __global__ void transpose_naive(const float* x, float* y, int rows, int cols)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < rows && j < cols) y[(size_t)j * rows + i] = x[(size_t)i * cols + j];
}
