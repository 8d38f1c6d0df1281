// params: kind=smem_tile block_x=32 block_y=8
// launch: grid=(cdiv(w, 32), cdiv(h, 8)) block=(32, 8)
// A (32+4) x (8+4) image tile (zero outside the image) and the filter in shared memory.
extern "C" __global__ void conv2d_smem_tile(int h, int w, const float* x, const float* k, float* y)
{
    __shared__ float t[12][36];
    __shared__ float f[25];
    int tid = threadIdx.y * 32 + threadIdx.x;
    if (tid < 25) f[tid] = k[tid];
    int i0 = blockIdx.y * 8 - 2, j0 = blockIdx.x * 32 - 2;
    for (int q = tid; q < 12 * 36; q += 256) {
        int r = q / 36, c = q % 36;
        int gi = i0 + r, gj = j0 + c;
        t[r][c] = gi >= 0 && gi < h && gj >= 0 && gj < w ? x[(size_t)gi * w + gj] : 0.0f;
    }
    __syncthreads();
    int j = blockIdx.x * 32 + threadIdx.x;
    int i = blockIdx.y * 8 + threadIdx.y;
    if (i >= h || j >= w) return;
    float acc = 0.0f;
    for (int a = 0; a < 5; ++a)
        for (int b = 0; b < 5; ++b)
            acc += f[a * 5 + b] * t[threadIdx.y + a][threadIdx.x + b];
    y[(size_t)i * w + j] = acc;
}
