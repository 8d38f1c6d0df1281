// params: kind=tile2d order=xy block_x=32 block_y=8
// launch: grid=(cdiv(cols, 32), cdiv(rows, 8)) block=(32, 8)
// A 2-D grid: threadIdx.x along the row (coalesced), no modulo.
extern "C" __global__ void bias_scale_residual_tile2d(const float* x, const float* residual, const float* bias, float* y, int rows, int cols, float scale)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        size_t i = (size_t)r * cols + c;
        y[i] = (x[i] + bias[c]) * scale + residual[i];
    }
}
