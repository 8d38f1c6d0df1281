// params: kind=tile2d block_x=32 block_y=8
// launch: grid=(cdiv(cols, 32), cdiv(rows, 8)) block=(32, 8)
// A 2-D grid over (row, col): threadIdx.x runs along a row, so each warp reads 32 consecutive floats.
extern "C" __global__ void sigmoid_tile2d(const float* x, float* y, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        size_t i = (size_t)r * cols + c;
        y[i] = 1.0f / (1.0f + expf(-x[i]));
    }
}
