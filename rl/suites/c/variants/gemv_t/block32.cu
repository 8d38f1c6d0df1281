// params: kind=naive_port block_x=32
// launch: grid=(cdiv(cols, 32)) block=(32)
// The naive port with 32-thread blocks: more blocks (SMs busy) when cols is small.
extern "C" __global__ void gemv_t_block32(int rows, int cols, float alpha, float beta, const float* a,
                                          const float* x, float* y)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= cols) return;
    float acc = 0.0f;
    for (int i = 0; i < rows; ++i)
        acc += a[(size_t)i * cols + j] * x[i];
    y[j] = alpha * acc + beta * y[j];
}
