// params: kind=tile2d order=yx block_x=32 block_y=8
// launch: grid=(cdiv(rows, 32), cdiv(cols, 8)) block=(32, 8)
// A poor port: threadIdx.x picks the row, so a warp's 32 accesses are a whole row apart (uncoalesced).
__device__ __forceinline__ float op(float v)
{
    float u = 0.7978845608028654f * (v + 0.044715f * v * v * v);
    return 0.5f * v * (1.0f + tanhf(u));
}
extern "C" __global__ void bias_gelu_tile2d_yx(const float* x, const float* bias, float* y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        size_t i = (size_t)r * cols + c;
        y[i] = op(x[i] + bias[c]);
    }
}
