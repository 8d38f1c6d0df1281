// Naive port: one thread per output (b, c), a sequential loop over the R rows.
extern "C" __global__ void mean_middle_dim_naive(const float* x, float* y, int nb, int nr, int nc)
{
    int o = blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= nb * nc) return;
    int b = o / nc, c = o % nc;
    float s = 0.0f;
    for (int r = 0; r < nr; ++r) s += x[((size_t)b * nr + r) * nc + c];
    y[o] = s / nr;
}
