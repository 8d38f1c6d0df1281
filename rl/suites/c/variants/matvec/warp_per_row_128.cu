// params: kind=warp_per_row block_x=128
// launch: grid=(cdiv(rows, 4)) block=(128)
extern "C" __global__ void matvec_warp_per_row_128(int rows, int cols, const float* a, const float* x, float* y)
{
    int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* ar = a + (size_t)row * cols;
    float acc = 0.0f;
    for (int j = lane; j < cols; j += 32) acc += ar[j] * x[j];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) y[row] = acc;
}
