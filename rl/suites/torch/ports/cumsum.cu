// Naive port: one thread per row, a sequential running sum; a warp's threads touch addresses
// COLS floats apart, and only ROWS threads run.
extern "C" __global__ void cumsum_naive(const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float acc = 0.0f;
    for (int c = 0; c < cols; ++c) {
        acc += xr[c];
        yr[c] = acc;
    }
}
