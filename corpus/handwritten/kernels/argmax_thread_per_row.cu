// Row argmax (first index of the maximum), one thread per row.
extern "C" __global__ void argmax_thread_per_row(const float* x, int* idx, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* row = x + (size_t)r * cols;
    float best = row[0];
    int bi = 0;
    for (int c = 1; c < cols; ++c) {
        float v = row[c];
        if (v > best) { best = v; bi = c; }
    }
    idx[r] = bi;
}
