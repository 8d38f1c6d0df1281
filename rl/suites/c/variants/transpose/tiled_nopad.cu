// params: kind=tiled tile=32 pad=0 block_x=32 block_y=8
// launch: grid=(cdiv(cols, 32), cdiv(rows, 32)) block=(32, 8)
// As tiled_pad without the padding column: the column-wise shared reads hit one bank 32 times.
extern "C" __global__ void transpose_tiled_nopad(int rows, int cols, const float* a, float* b)
{
    __shared__ float t[32][32];
    int j = blockIdx.x * 32 + threadIdx.x;
    int i0 = blockIdx.y * 32;
    for (int r = threadIdx.y; r < 32; r += 8)
        if (i0 + r < rows && j < cols) t[r][threadIdx.x] = a[(size_t)(i0 + r) * cols + j];
    __syncthreads();
    int oi = i0 + threadIdx.x;
    int oj0 = blockIdx.x * 32;
    for (int r = threadIdx.y; r < 32; r += 8)
        if (oj0 + r < cols && oi < rows) b[(size_t)(oj0 + r) * rows + oi] = t[threadIdx.x][r];
}
