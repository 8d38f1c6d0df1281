// params: kind=naive_port order=yx block_x=16 block_y=16
// launch: grid=(cdiv(m, 16), cdiv(m, 16)) block=(16, 16)
// Plausible but slower: threadIdx.x picks the row i of cov, so the writes stride by m.
extern "C" __global__ void covariance_direct_yx(int n, int m, const float* data, float* cov)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
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
