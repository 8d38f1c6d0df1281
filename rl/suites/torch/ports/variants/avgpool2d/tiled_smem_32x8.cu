// params: kind=tiled_smem block_x=32 block_y=8
// launch: grid=(cdiv(w, 32), cdiv(h, 8), planes) block=(32, 8)
// A 32x8 output tile: its 10x34 input halo staged in shared memory (zeros outside the
// plane), so each input is read from global memory about once.
extern "C" __global__ void avgpool2d_tiled_smem_32x8(const float* x, float* y, int planes, int h, int w)
{
    __shared__ float tile[10][34];
    int p = blockIdx.z;
    if (p >= planes) return;
    int x0 = blockIdx.x * 32 - 1, y0 = blockIdx.y * 8 - 1;
    const float* xp = x + (size_t)p * h * w;
    for (int k = threadIdx.y * 32 + threadIdx.x; k < 10 * 34; k += 256) {
        int ty = k / 34, tx = k % 34;
        int yy = y0 + ty, xx = x0 + tx;
        tile[ty][tx] = (yy >= 0 && yy < h && xx >= 0 && xx < w) ? xp[(size_t)yy * w + xx] : 0.0f;
    }
    __syncthreads();
    int ox = blockIdx.x * 32 + threadIdx.x, oy = blockIdx.y * 8 + threadIdx.y;
    if (ox >= w || oy >= h) return;
    int a = threadIdx.y, b = threadIdx.x;
    float s = tile[a][b] + tile[a][b + 1] + tile[a][b + 2]
            + tile[a + 1][b] + tile[a + 1][b + 1] + tile[a + 1][b + 2]
            + tile[a + 2][b] + tile[a + 2][b + 1] + tile[a + 2][b + 2];
    y[((size_t)p * h + oy) * w + ox] = s / 9.0f;
}
