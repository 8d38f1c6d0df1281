// params: kind=tile2d smem=1 block_x=16 block_y=16
// launch: grid=(cdiv(width, 16), cdiv(height, 16), batch * channels) block=(16, 16)
// A (16 + 2) x (16 + 2) input tile with its halo staged in shared memory (zeros outside the
// plane), weights in shared memory: each input value is read from global memory about once.
extern "C" __global__ void depthwise_conv2d_smem_halo_16x16(const float* x, const float* weight, float* y,
                                                         int batch, int channels, int height, int width)
{
    __shared__ float tile[16 + 2][16 + 2];
    __shared__ float ws[9];
    int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    int ox0 = blockIdx.x * 16, oy0 = blockIdx.y * 16;
    int plane_id = blockIdx.z;
    int c = plane_id % channels;
    const float* xp = x + (size_t)plane_id * height * width;
    if (tid < 9) ws[tid] = weight[c * 9 + tid];
    for (int e = tid; e < (16 + 2) * (16 + 2); e += 16 * 16) {
        int r = e / (16 + 2), s = e % (16 + 2);
        int iy = oy0 + r - 1, ix = ox0 + s - 1;
        tile[r][s] = iy >= 0 && iy < height && ix >= 0 && ix < width ? xp[iy * width + ix] : 0.0f;
    }
    __syncthreads();
    int ox = ox0 + tx, oy = oy0 + ty;
    if (ox >= width || oy >= height) return;
    float acc = 0.0f;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            acc += tile[ty + i][tx + j] * ws[i * 3 + j];
    y[(size_t)plane_id * height * width + oy * width + ox] = acc;
}
