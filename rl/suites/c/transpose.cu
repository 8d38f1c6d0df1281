// Naive port: one thread per element; reads coalesced along a row, writes strided by rows.
extern "C" __global__ void transpose_naive(int rows, int cols, const float* a, float* b)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < rows && j < cols)
        b[(size_t)j * rows + i] = a[(size_t)i * cols + j];
}
