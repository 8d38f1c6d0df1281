// y = A x (A row-major rows x cols), one thread per row: uncoalesced reads of A.
extern "C" __global__ void gemv_thread_per_row(const float* A, const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) {
        float acc = 0.0f;
        for (int c = 0; c < cols; ++c)
            acc += A[(size_t)r * cols + c] * x[c];
        y[r] = acc;
    }
}
