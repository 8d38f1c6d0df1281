// params: kind=tiled order=tile tile=32 pad=0 block_x=32 block_y=8
// launch: grid=(cdiv(cols, 32), cdiv(rows, 32)) block=(32, 8)
// A 32x32 tile through shared memory (4 elements per thread): reads and writes coalesced.
// No padding column: the column-wise shared reads hit one bank 32 times (32-way conflicts).
extern "C" __global__ void transpose_tiled32_nopad(const float* x, float* y, int rows, int cols)
{
    __shared__ float t[32][32];
    int j = blockIdx.x * 32 + threadIdx.x;
    int i0 = blockIdx.y * 32;
    for (int r = threadIdx.y; r < 32; r += 8)
        if (i0 + r < rows && j < cols) t[r][threadIdx.x] = x[(size_t)(i0 + r) * cols + j];
    __syncthreads();
    int oi = i0 + threadIdx.x;              // output column (an input row)
    int oj0 = blockIdx.x * 32;              // output rows (input columns)
    for (int r = threadIdx.y; r < 32; r += 8)
        if (oj0 + r < cols && oi < rows) y[(size_t)(oj0 + r) * rows + oi] = t[threadIdx.x][r];
}
