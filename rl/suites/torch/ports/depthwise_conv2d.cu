// Naive port: one thread per output element y[n][c][oy][ox] = sum over the 3x3 window of
// x[n][c][oy + i - 1][ox + j - 1] * w[c][0][i][j] (zero padding).
extern "C" __global__ void depthwise_conv2d_naive(const float* x, const float* weight, float* y,
                                                  int batch, int channels, int height, int width)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = batch * channels * height * width;
    if (idx >= total) return;
    int ox = idx % width;
    int oy = (idx / width) % height;
    int c = (idx / (width * height)) % channels;
    const float* plane = x + (size_t)(idx / (width * height)) * height * width;
    float acc = 0.0f;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            int iy = oy + i - 1, ix = ox + j - 1;
            if (iy >= 0 && iy < height && ix >= 0 && ix < width)
                acc += plane[iy * width + ix] * weight[c * 9 + i * 3 + j];
        }
    }
    y[idx] = acc;
}
