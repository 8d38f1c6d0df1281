// params: kind=tiled_smem block_x=16 block_y=16
// launch: grid=(cdiv(w, 16), cdiv(h, 16), planes) block=(16, 16)
// A 16x16 output tile: its 18x18 input halo staged in shared memory (zeros outside the
// plane), so each input is read from global memory about once.
extern "C" __global__ void avgpool2d_tiled_smem_16x16(const float* x, float* y, int planes, int h, int w)
{
    __shared__ float tile[18][18];
    int p = blockIdx.z;
    if (p >= planes) return;
    int x0 = blockIdx.x * 16 - 1, y0 = blockIdx.y * 16 - 1;
    const float* xp = x + (size_t)p * h * w;
    for (int k = threadIdx.y * 16 + threadIdx.x; k < 18 * 18; k += 256) {
        int ty = k / 18, tx = k % 18;
        int yy = y0 + ty, xx = x0 + tx;
        tile[ty][tx] = (yy >= 0 && yy < h && xx >= 0 && xx < w) ? xp[(size_t)yy * w + xx] : 0.0f;
    }
    __syncthreads();
    int ox = blockIdx.x * 16 + threadIdx.x, oy = blockIdx.y * 16 + threadIdx.y;
    if (ox >= w || oy >= h) return;
    int a = threadIdx.y, b = threadIdx.x;
    float s = tile[a][b] + tile[a][b + 1] + tile[a][b + 2]
            + tile[a + 1][b] + tile[a + 1][b + 1] + tile[a + 1][b + 2]
            + tile[a + 2][b] + tile[a + 2][b + 1] + tile[a + 2][b + 2];
    y[((size_t)p * h + oy) * w + ox] = s / 9.0f;
}
