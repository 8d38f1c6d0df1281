// params: kind=tile2d smem=0 block_x=16 block_y=16
// launch: grid=(cdiv(width, 16), cdiv(height, 16), batch * channels) block=(16, 16)
// A 2-D grid over each (n, c) plane (blockIdx.z): no divisions per element, the channel's nine
// weights in registers, nine guarded global loads per output (neighbours come from L1).
extern "C" __global__ void depthwise_conv2d_tile2d_16x16(const float* x, const float* weight, float* y,
                                                         int batch, int channels, int height, int width)
{
    int ox = blockIdx.x * 16 + threadIdx.x;
    int oy = blockIdx.y * 16 + threadIdx.y;
    int plane_id = blockIdx.z;
    int c = plane_id % channels;
    if (plane_id >= batch * channels || ox >= width || oy >= height) return;
    const float* xp = x + (size_t)plane_id * height * width;
    float w[9];
    for (int t = 0; t < 9; ++t) w[t] = weight[c * 9 + t];
    float acc = 0.0f;
    for (int i = 0; i < 3; ++i) {
        int iy = oy + i - 1;
        if (iy < 0 || iy >= height) continue;
        for (int j = 0; j < 3; ++j) {
            int ix = ox + j - 1;
            if (ix >= 0 && ix < width) acc += xp[iy * width + ix] * w[i * 3 + j];
        }
    }
    y[(size_t)plane_id * height * width + oy * width + ox] = acc;
}
