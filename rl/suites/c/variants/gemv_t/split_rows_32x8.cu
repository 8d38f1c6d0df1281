// params: kind=split_rows block_x=32 block_y=8
// launch: grid=(cdiv(cols, 32)) block=(32, 8)
// 8 row groups per block sum disjoint slices of each column, then combine in shared memory:
// 8x the threads of the naive port on the same columns.
extern "C" __global__ void gemv_t_split_rows_32x8(int rows, int cols, float alpha, float beta, const float* a,
                                                  const float* x, float* y)
{
    __shared__ float part[32][33];
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    if (j < cols)
        for (int i = threadIdx.y; i < rows; i += blockDim.y)
            acc += a[(size_t)i * cols + j] * x[i];
    part[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y == 0 && j < cols) {
        float s = 0.0f;
        for (int g = 0; g < (int)blockDim.y; ++g) s += part[g][threadIdx.x];
        y[j] = alpha * s + beta * y[j];
    }
}
