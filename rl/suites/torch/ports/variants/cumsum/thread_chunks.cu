// params: kind=thread_chunks vec=1 block_x=256
// launch: grid=(rows) block=(256)
// One block per row, each thread owning a contiguous chunk of cdiv(cols, 256) columns: a serial
// sum, a block scan of the chunk totals, then a serial rewrite. Neighbouring threads read
// addresses a chunk apart (uncoalesced; the second pass mostly hits L1/L2).
extern "C" __global__ void cumsum_thread_chunks(const float* x, float* y, int rows, int cols)
{
    __shared__ float tot[256];
    int r = blockIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    int t = threadIdx.x;
    int chunk = (cols + 255) / 256;
    int b = min(t * chunk, cols), e = min(b + chunk, cols);
    float s = 0.0f;
    for (int c = b; c < e; ++c) s += xr[c];
    tot[t] = s;
    __syncthreads();
    for (int o = 1; o < 256; o <<= 1) {     // Hillis-Steele inclusive scan of the totals
        float v = t >= o ? tot[t - o] : 0.0f;
        __syncthreads();
        tot[t] += v;
        __syncthreads();
    }
    float acc = t > 0 ? tot[t - 1] : 0.0f;
    for (int c = b; c < e; ++c) {
        acc += xr[c];
        yr[c] = acc;
    }
}
