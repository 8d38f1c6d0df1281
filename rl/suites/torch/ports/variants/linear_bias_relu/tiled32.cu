// params: kind=tiled tile=32 pad=0 block_x=32 block_y=32
// launch: grid=(cdiv(out_features, 32), cdiv(batch, 32)) block=(32, 32)
// A poor port: 32x32 tiles, but ws[tx][q] walks a column of an unpadded 32-wide array, so every
// inner-loop read is a 32-way bank conflict. Bias + ReLU fused.
extern "C" __global__ void linear_bias_relu_tiled32(const float* x, const float* weight, const float* bias, float* y,
                                                  int batch, int in_features, int out_features)
{
    __shared__ float xs[32][32];       // xs[r][q]: x[row0 + r][p0 + q]
    __shared__ float ws[32][32];       // ws[c][q]: W[col0 + c][p0 + q]
    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
    int row = row0 + ty, col = col0 + tx;
    float acc = 0.0f;
    for (int p0 = 0; p0 < in_features; p0 += 32) {
        int p = p0 + tx;
        xs[ty][tx] = row < batch && p < in_features ? x[(size_t)row * in_features + p] : 0.0f;
        ws[ty][tx] = col0 + ty < out_features && p < in_features ? weight[(size_t)(col0 + ty) * in_features + p] : 0.0f;
        __syncthreads();
        for (int q = 0; q < 32; ++q)
            acc += xs[ty][q] * ws[tx][q];
        __syncthreads();
    }
    if (row < batch && col < out_features)
        y[(size_t)row * out_features + col] = fmaxf(acc + bias[col], 0.0f);
}
