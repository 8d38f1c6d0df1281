// Naive port: one thread per entry (i, j) of cov; each thread computes the two means it
// needs itself, then its sum of products down the two columns.
extern "C" __global__ void covariance_naive(int n, int m, const float* data, float* cov)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= m || j >= m) return;
    float mi = 0.0f, mj = 0.0f;
    for (int k = 0; k < n; ++k) {
        mi += data[(size_t)k * m + i];
        mj += data[(size_t)k * m + j];
    }
    mi /= (float)n;
    mj /= (float)n;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
        acc += (data[(size_t)k * m + i] - mi) * (data[(size_t)k * m + j] - mj);
    cov[(size_t)i * m + j] = acc / (float)(n - 1);
}
