// params: kind=register_blocked rows_per_thread=4 block_x=32 block_y=8
// launch: grid=(cdiv(width, 32), cdiv(height, 32), batch * channels) block=(32, 8)
// Each thread computes 4 vertically adjacent outputs of one column: the 6 x 3 input window is
// loaded once into registers (18 loads for 4 outputs instead of 36), warps read rows coalesced.
extern "C" __global__ void depthwise_conv2d_regblock_rows4(const float* x, const float* weight, float* y,
                                                           int batch, int channels, int height, int width)
{
    int ox = blockIdx.x * 32 + threadIdx.x;
    int oy0 = blockIdx.y * 32 + threadIdx.y * 4;
    int plane_id = blockIdx.z;
    int c = plane_id % channels;
    if (plane_id >= batch * channels || ox >= width || oy0 >= height) return;
    const float* xp = x + (size_t)plane_id * height * width;
    float* yp = y + (size_t)plane_id * height * width;
    float w[9];
    for (int t = 0; t < 9; ++t) w[t] = weight[c * 9 + t];
    float in[6][3];
    for (int r = 0; r < 6; ++r) {
        int iy = oy0 + r - 1;
        for (int j = 0; j < 3; ++j) {
            int ix = ox + j - 1;
            in[r][j] = iy >= 0 && iy < height && ix >= 0 && ix < width ? xp[iy * width + ix] : 0.0f;
        }
    }
    for (int t = 0; t < 4; ++t) {
        int oy = oy0 + t;
        if (oy >= height) break;
        float acc = 0.0f;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) acc += in[t + i][j] * w[i * 3 + j];
        yp[oy * width + ox] = acc;
    }
}
