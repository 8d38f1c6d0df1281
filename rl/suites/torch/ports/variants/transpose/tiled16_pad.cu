// params: kind=tiled order=tile tile=16 pad=1 block_x=16 block_y=16
// launch: grid=(cdiv(cols, 16), cdiv(rows, 16)) block=(16, 16)
// A padded 16x16 tile: coalesced both ways, but only 64-byte row segments per half-warp.
extern "C" __global__ void transpose_tiled16_pad(const float* x, float* y, int rows, int cols)
{
    __shared__ float t[16][17];
    int j = blockIdx.x * 16 + threadIdx.x;
    int i = blockIdx.y * 16 + threadIdx.y;
    if (i < rows && j < cols) t[threadIdx.y][threadIdx.x] = x[(size_t)i * cols + j];
    __syncthreads();
    int oi = blockIdx.y * 16 + threadIdx.x;
    int oj = blockIdx.x * 16 + threadIdx.y;
    if (oj < cols && oi < rows) y[(size_t)oj * rows + oi] = t[threadIdx.x][threadIdx.y];
}
