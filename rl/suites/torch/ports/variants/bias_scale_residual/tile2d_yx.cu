// params: kind=tile2d order=yx block_x=32 block_y=8
// launch: grid=(cdiv(rows, 32), cdiv(cols, 8)) block=(32, 8)
// A poor port: threadIdx.x picks the row, so a warp's 32 accesses are a whole row apart (uncoalesced).
extern "C" __global__ void bias_scale_residual_tile2d_yx(const float* x, const float* residual, const float* bias, float* y, int rows, int cols, float scale)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        size_t i = (size_t)r * cols + c;
        y[i] = (x[i] + bias[c]) * scale + residual[i];
    }
}
