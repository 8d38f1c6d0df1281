// params: kind=naive_port block_x=32
// launch: grid=(cdiv(rows, 32)) block=(32)
// The naive port with one warp per block: more SMs busy, the same strided row walks.
extern "C" __global__ void layernorm_rows_thread_per_row_32(int rows, int cols, float eps, const float* x,
                                                            const float* gamma, const float* beta, float* y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float mean = 0.0f;
    for (int c = 0; c < cols; ++c)
        mean += xr[c];
    mean /= (float)cols;
    float var = 0.0f;
    for (int c = 0; c < cols; ++c) {
        float d = xr[c] - mean;
        var += d * d;
    }
    var /= (float)cols;
    float inv = 1.0f / sqrtf(var + eps);
    for (int c = 0; c < cols; ++c)
        yr[c] = (xr[c] - mean) * inv * gamma[c] + beta[c];
}
