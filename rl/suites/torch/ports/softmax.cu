// Naive port: one thread per row (max, sum of exponentials, scaled write); a warp's threads
// read addresses COLS floats apart.
extern "C" __global__ void softmax_naive(const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float mx = -__int_as_float(0x7f800000);
    for (int c = 0; c < cols; ++c) mx = fmaxf(mx, xr[c]);
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) sum += expf(xr[c] - mx);
    for (int c = 0; c < cols; ++c) yr[c] = expf(xr[c] - mx) / sum;
}
