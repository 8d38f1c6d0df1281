// params: kind=naive_port block_x=32
// launch: grid=(cdiv(rows, 32)) block=(32)
// The naive port in 32-thread blocks: more SMs busy for few rows, the same strided walks.
extern "C" __global__ void cumsum_rows_thread_per_row_32(int rows, int cols, const float* x, float* y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) {
        acc += x[(size_t)r * cols + c];
        y[(size_t)r * cols + c] = acc;
    }
}
