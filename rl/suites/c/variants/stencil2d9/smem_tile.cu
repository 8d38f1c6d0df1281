// params: kind=smem_tile block_x=32 block_y=8
// launch: grid=(cdiv(w, 32), cdiv(h, 8)) block=(32, 8)
// A (32+2) x (8+2) tile with its halo in shared memory; each input read once per block.
extern "C" __global__ void stencil2d9_smem_tile(int h, int w, const float* x, float* y)
{
    __shared__ float t[10][34];
    int j0 = blockIdx.x * 32 - 1, i0 = blockIdx.y * 8 - 1;
    for (int k = threadIdx.y * 32 + threadIdx.x; k < 10 * 34; k += 256) {
        int r = k / 34, c = k % 34;
        int gi = i0 + r, gj = j0 + c;
        t[r][c] = gi >= 0 && gi < h && gj >= 0 && gj < w ? x[(size_t)gi * w + gj] : 0.0f;
    }
    __syncthreads();
    int j = blockIdx.x * 32 + threadIdx.x;
    int i = blockIdx.y * 8 + threadIdx.y;
    if (i >= h || j >= w) return;
    int r = threadIdx.y + 1, c = threadIdx.x + 1;
    size_t p = (size_t)i * w + j;
    if (i == 0 || j == 0 || i == h - 1 || j == w - 1) {
        y[p] = t[r][c];
        return;
    }
    y[p] = 0.0625f * (t[r - 1][c - 1] + 2.0f * t[r - 1][c] + t[r - 1][c + 1])
         + 0.125f * (t[r][c - 1] + 2.0f * t[r][c] + t[r][c + 1])
         + 0.0625f * (t[r + 1][c - 1] + 2.0f * t[r + 1][c] + t[r + 1][c + 1]);
}
