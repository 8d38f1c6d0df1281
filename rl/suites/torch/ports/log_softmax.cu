// Naive port: one thread per row (max, sum of exponentials, x - max - log(sum)); with 32 to 512
// rows only a few warps run, and a warp's threads read addresses VOCAB floats apart.
extern "C" __global__ void log_softmax_naive(const float* x, float* y, int rows, int vocab)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * vocab;
    float* yr = y + (size_t)r * vocab;
    float mx = -__int_as_float(0x7f800000);
    for (int c = 0; c < vocab; ++c) mx = fmaxf(mx, xr[c]);
    float sum = 0.0f;
    for (int c = 0; c < vocab; ++c) sum += expf(xr[c] - mx);
    float lse = mx + logf(sum);
    for (int c = 0; c < vocab; ++c) yr[c] = xr[c] - lse;
}
