// params: kind=warp_per_column block_x=256
// launch: grid=(cdiv(cols, 8)) block=(256)
// Plausible but slower: a warp per column (as for matvec), but a column of row-major A is strided,
// so every lane's load is its own 32-byte sector.
extern "C" __global__ void gemv_t_warp_per_column(int rows, int cols, float alpha, float beta, const float* a,
                                                  const float* x, float* y)
{
    int j = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (j >= cols) return;
    float acc = 0.0f;
    for (int i = lane; i < rows; i += 32) acc += a[(size_t)i * cols + j] * x[i];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) y[j] = alpha * acc + beta * y[j];
}
