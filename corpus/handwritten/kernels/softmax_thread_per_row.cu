// Row softmax, one thread per row, three passes (max, sum of exps, write).
extern "C" __global__ void softmax_thread_per_row(const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* in = x + (size_t)r * cols;
    float* out = y + (size_t)r * cols;

    float m = in[0];
    for (int c = 1; c < cols; ++c) m = fmaxf(m, in[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += expf(in[c] - m);
    for (int c = 0; c < cols; ++c) out[c] = expf(in[c] - m) / s;
}
