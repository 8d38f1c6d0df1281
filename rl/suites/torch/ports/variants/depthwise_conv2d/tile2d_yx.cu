// params: kind=tile2d order=yx smem=0 block_x=16 block_y=16
// launch: grid=(cdiv(height, 16), cdiv(width, 16), batch * channels) block=(16, 16)
// A poor port: threadIdx.x picks the output row, so a warp's loads and stores are width floats
// apart (one sector per thread instead of a few per warp).
extern "C" __global__ void depthwise_conv2d_tile2d_yx(const float* x, const float* weight, float* y,
                                                      int batch, int channels, int height, int width)
{
    int oy = blockIdx.x * 16 + threadIdx.x;
    int ox = blockIdx.y * 16 + threadIdx.y;
    int plane_id = blockIdx.z;
    int c = plane_id % channels;
    if (plane_id >= batch * channels || ox >= width || oy >= height) return;
    const float* xp = x + (size_t)plane_id * height * width;
    float acc = 0.0f;
    for (int i = 0; i < 3; ++i) {
        int iy = oy + i - 1;
        if (iy < 0 || iy >= height) continue;
        for (int j = 0; j < 3; ++j) {
            int ix = ox + j - 1;
            if (ix >= 0 && ix < width) acc += xp[iy * width + ix] * weight[c * 9 + i * 3 + j];
        }
    }
    y[(size_t)plane_id * height * width + oy * width + ox] = acc;
}
