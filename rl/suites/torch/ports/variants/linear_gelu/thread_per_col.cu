// params: kind=thread_per_col rows=16 block_x=256
// launch: grid=(cdiv(out_features, 256)) block=(256)
// A poor port: one thread per output feature looping over the batch rows (W read once), but a
// warp's loads of W are in_features floats apart (32 sectors per request) and only
// out_features / 256 blocks run.
extern "C" __global__ void linear_gelu_thread_per_col(const float* x, const float* weight, const float* bias, float* y,
                                                      int batch, int in_features, int out_features)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (col >= out_features) return;
    const float* wr = weight + (size_t)col * in_features;
    float bcol = bias[col];
    for (int r0 = 0; r0 < batch; r0 += 16) {
        int rows = min(16, batch - r0);
        float acc[16];
#pragma unroll
        for (int r = 0; r < 16; ++r) acc[r] = 0.0f;
        for (int p = 0; p < in_features; ++p) {
            float wv = wr[p];
#pragma unroll
            for (int r = 0; r < 16; ++r)
                if (r < rows) acc[r] += wv * x[(size_t)(r0 + r) * in_features + p];
        }
#pragma unroll
        for (int r = 0; r < 16; ++r) {
            if (r < rows) {
                float v = acc[r] + bcol;
                y[(size_t)(r0 + r) * out_features + col] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
            }
        }
    }
}
