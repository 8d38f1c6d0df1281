// params: kind=naive_port order=yx block_x=16 block_y=16
// launch: grid=(cdiv(m, 16), cdiv(m, 16)) block=(16, 16)
// Plausible but slower: threadIdx.x picks the row i of corr, so the writes stride by m.
extern "C" __global__ void correlation_direct_yx(int n, int m, const float* data, float* corr)
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
    float si = 0.0f, sj = 0.0f;
    for (int k = 0; k < n; ++k) {
        float ci = data[(size_t)k * m + i] - mi;
        float cj = data[(size_t)k * m + j] - mj;
        si += ci * ci;
        sj += cj * cj;
    }
    si = sqrtf(si / (float)n);
    sj = sqrtf(sj / (float)n);
    if (si <= 1e-6f) si = 1.0f;
    if (sj <= 1e-6f) sj = 1.0f;
    float acc = 0.0f;
    for (int k = 0; k < n; ++k)
        acc += ((data[(size_t)k * m + i] - mi) / si) * ((data[(size_t)k * m + j] - mj) / sj);
    corr[(size_t)i * m + j] = acc / (float)n;
}
