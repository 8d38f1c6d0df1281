// Row sums, one thread per row: the first version most people write.
// Neighbouring threads read addresses `cols` floats apart, so each warp load
// touches 32 different sectors and relies on L1 to reuse them.
extern "C" __global__ void rowsum_thread_per_row(const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float acc = 0.0f;
        for (int c = 0; c < cols; ++c)
            acc += x[(size_t)r * cols + c];
        y[r] = acc;
    }
}
