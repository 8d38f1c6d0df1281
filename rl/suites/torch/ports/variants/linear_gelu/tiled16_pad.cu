// params: kind=tiled tile=16 pad=1 block_x=16 block_y=16
// launch: grid=(cdiv(out_features, 16), cdiv(batch, 16)) block=(16, 16)
// The generic shared-memory-tiled GEMM (16x16 tiles of x and W, padded rows) with bias + GELU fused:
// a compute-bound recipe on a weight-read-bound shape (one row of blocks when batch is 16).
extern "C" __global__ void linear_gelu_tiled16_pad(const float* x, const float* weight, const float* bias, float* y,
                                                   int batch, int in_features, int out_features)
{
    __shared__ float xs[16][17];            // xs[r][q]: x[row0 + r][p0 + q]
    __shared__ float ws[16][17];            // ws[c][q]: W[col0 + c][p0 + q]
    int tx = threadIdx.x, ty = threadIdx.y;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;
    int row = row0 + ty, col = col0 + tx;
    float acc = 0.0f;
    for (int p0 = 0; p0 < in_features; p0 += 16) {
        int p = p0 + tx;
        xs[ty][tx] = row < batch && p < in_features ? x[(size_t)row * in_features + p] : 0.0f;
        ws[ty][tx] = col0 + ty < out_features && p < in_features ? weight[(size_t)(col0 + ty) * in_features + p] : 0.0f;
        __syncthreads();
        for (int q = 0; q < 16; ++q)
            acc += xs[ty][q] * ws[tx][q];
        __syncthreads();
    }
    if (row < batch && col < out_features) {
        float v = acc + bias[col];
        y[(size_t)row * out_features + col] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    }
}
