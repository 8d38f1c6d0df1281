// params: kind=rows_loop rows_per_block=32 block_x=256
// launch: grid=(cdiv(cols, 256), cdiv(rows, 32)) block=(256)
// Each thread owns a column: the bias read once into a register, then 32 rows down (each row coalesced).
__device__ __forceinline__ float op(float v)
{
    float u = 0.7978845608028654f * (v + 0.044715f * v * v * v);
    return 0.5f * v * (1.0f + tanhf(u));
}
extern "C" __global__ void bias_gelu_rows_loop(const float* x, const float* bias, float* y, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float bc = bias[c];
    int r0 = blockIdx.y * 32;
    int r1 = min(r0 + 32, rows);
    for (int r = r0; r < r1; ++r) {
        size_t i = (size_t)r * cols + c;
        y[i] = op(x[i] + bc);
    }
}
