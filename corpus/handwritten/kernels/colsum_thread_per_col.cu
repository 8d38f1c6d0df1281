// Column sums, one thread per column walking down all rows: coalesced across
// the warp but only `cols` threads in flight.
extern "C" __global__ void colsum_thread_per_col(const float* x, float* y, int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float acc = 0.0f;
    for (int r = 0; r < rows; ++r)
        acc += x[(size_t)r * cols + c];
    y[c] = acc;
}
