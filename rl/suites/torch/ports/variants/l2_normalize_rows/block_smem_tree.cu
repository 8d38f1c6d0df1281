// params: kind=block_smem_tree vec=1 block_x=256
// launch: grid=(rows) block=(256)
// One block per row, textbook shared-memory tree reduction with interleaved addressing
// (s[2*k*t] += s[2*k*t + k]): divergent warps and 2..32-way bank conflicts at every level.
extern "C" __global__ void l2_normalize_rows_block_smem_tree(const float* x, float* y, int rows, int cols)
{
    __shared__ float s[256];
    int r = blockIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    int t = threadIdx.x;
    float ss = 0.0f;
    for (int c = t; c < cols; c += 256) { float v = xr[c]; ss += v * v; }
    s[t] = ss;
    __syncthreads();
    for (int k = 1; k < 256; k <<= 1) {
        int i = 2 * k * t;
        if (i < 256) s[i] += s[i + k];
        __syncthreads();
    }
    float inv = 1.0f / fmaxf(sqrtf(s[0]), 1e-12f);
    for (int c = t; c < cols; c += 256) yr[c] = xr[c] * inv;
}
