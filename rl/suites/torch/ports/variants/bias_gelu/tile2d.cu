// params: kind=tile2d order=xy block_x=32 block_y=8
// launch: grid=(cdiv(cols, 32), cdiv(rows, 8)) block=(32, 8)
// A 2-D grid: threadIdx.x along the row (coalesced), no modulo.
__device__ __forceinline__ float op(float v)
{
    float u = 0.7978845608028654f * (v + 0.044715f * v * v * v);
    return 0.5f * v * (1.0f + tanhf(u));
}
extern "C" __global__ void bias_gelu_tile2d(const float* x, const float* bias, float* y, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        size_t i = (size_t)r * cols + c;
        y[i] = op(x[i] + bias[c]);
    }
}
