// params: kind=tiled order=tile tile=32 pad=1 block_x=32 block_y=32
// launch: grid=(cdiv(cols, 32), cdiv(rows, 32)) block=(32, 32)
// A padded 32x32 tile, one element per thread per phase: 1024-thread blocks.
extern "C" __global__ void transpose_tiled32_pad_32x32(const float* x, float* y, int rows, int cols)
{
    __shared__ float t[32][33];
    int j = blockIdx.x * 32 + threadIdx.x;
    int i = blockIdx.y * 32 + threadIdx.y;
    if (i < rows && j < cols) t[threadIdx.y][threadIdx.x] = x[(size_t)i * cols + j];
    __syncthreads();
    int oi = blockIdx.y * 32 + threadIdx.x;
    int oj = blockIdx.x * 32 + threadIdx.y;
    if (oj < cols && oi < rows) y[(size_t)oj * rows + oi] = t[threadIdx.x][threadIdx.y];
}
