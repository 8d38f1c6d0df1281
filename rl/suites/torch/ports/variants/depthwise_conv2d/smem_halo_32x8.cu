// params: kind=tile2d smem=1 block_x=32 block_y=8
// launch: grid=(cdiv(width, 32), cdiv(height, 8), batch * channels) block=(32, 8)
// A (8 + 2) x (32 + 2) input tile with its halo staged in shared memory (zeros outside the
// plane), weights in shared memory: each input value is read from global memory about once.
extern "C" __global__ void depthwise_conv2d_smem_halo_32x8(const float* x, const float* weight, float* y,
                                                         int batch, int channels, int height, int width)
{
    __shared__ float tile[8 + 2][32 + 2];
    __shared__ float ws[9];
    int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 32 + tx;
    int ox0 = blockIdx.x * 32, oy0 = blockIdx.y * 8;
    int plane_id = blockIdx.z;
    int c = plane_id % channels;
    const float* xp = x + (size_t)plane_id * height * width;
    if (tid < 9) ws[tid] = weight[c * 9 + tid];
    for (int e = tid; e < (8 + 2) * (32 + 2); e += 32 * 8) {
        int r = e / (32 + 2), s = e % (32 + 2);
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
