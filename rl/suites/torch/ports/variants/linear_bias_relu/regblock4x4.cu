// params: kind=register_blocked tile=64 per_thread=16 block_x=16 block_y=16
// launch: grid=(cdiv(out_features, 64), cdiv(batch, 64)) block=(16, 16)
// 64x64 tile of y per block, 4x4 outputs per thread in registers, in_features in steps of 16; both
// tiles stored k-major (transposed) in shared memory; bias + ReLU fused into the epilogue.
extern "C" __global__ void linear_bias_relu_regblock4x4(const float* x, const float* weight, const float* bias, float* y,
                                                        int batch, int in_features, int out_features)
{
    __shared__ float xs[16][64 + 1];        // xs[q][r]: x[row0 + r][p0 + q]
    __shared__ float ws[16][64 + 1];        // ws[q][c]: W[col0 + c][p0 + q]
    int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    float acc[4][4];
    for (int r = 0; r < 4; ++r)
        for (int s = 0; s < 4; ++s) acc[r][s] = 0.0f;
    for (int p0 = 0; p0 < in_features; p0 += 16) {
        for (int e = tid; e < 64 * 16; e += 256) {
            int r = e >> 4, q = e & 15;
            int p = p0 + q;
            xs[q][r] = row0 + r < batch && p < in_features ? x[(size_t)(row0 + r) * in_features + p] : 0.0f;
            ws[q][r] = col0 + r < out_features && p < in_features ? weight[(size_t)(col0 + r) * in_features + p] : 0.0f;
        }
        __syncthreads();
        for (int q = 0; q < 16; ++q) {
            float av[4], bv[4];
            for (int r = 0; r < 4; ++r) av[r] = xs[q][ty + 16 * r];
            for (int s = 0; s < 4; ++s) bv[s] = ws[q][tx + 16 * s];
            for (int r = 0; r < 4; ++r)
                for (int s = 0; s < 4; ++s) acc[r][s] += av[r] * bv[s];
        }
        __syncthreads();
    }
    for (int s = 0; s < 4; ++s) {
        int col = col0 + tx + 16 * s;
        if (col >= out_features) continue;
        float bcol = bias[col];
        for (int r = 0; r < 4; ++r) {
            int row = row0 + ty + 16 * r;
            if (row < batch) y[(size_t)row * out_features + col] = fmaxf(acc[r][s] + bcol, 0.0f);
        }
    }
}
