// params: kind=split_r block_x=32 block_y=8
// launch: grid=(cdiv(nc, 32), nb) block=(32, 8)
// 32 columns per block, the R rows split over the 8 thread rows (each row step a coalesced 128 B),
// the 8 partial sums combined through shared memory (padded rows).
extern "C" __global__ void mean_middle_dim_split_r_8(const float* x, float* y, int nb, int nr, int nc)
{
    __shared__ float s[8][33];
    int tx = threadIdx.x, ty = threadIdx.y;
    int b = blockIdx.y;
    int c = blockIdx.x * 32 + tx;
    float v = 0.0f;
    if (c < nc)
        for (int r = ty; r < nr; r += 8) v += x[((size_t)b * nr + r) * nc + c];
    s[ty][tx] = v;
    __syncthreads();
    if (ty == 0 && c < nc) {
        float t = 0.0f;
        for (int k = 0; k < 8; ++k) t += s[k][tx];
        y[(size_t)b * nc + c] = t / nr;
    }
}
