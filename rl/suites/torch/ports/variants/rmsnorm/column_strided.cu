// params: kind=column_strided vec=1 block_x=256
// launch: grid=(cdiv(tokens, 256)) block=(256)
// A poor port: one thread per row like the naive one, but the squares are summed with a
// column-major walk through a shared 2-D staging tile, so shared stores conflict (stride 33
// would fix it; stride 32 here) on top of the uncoalesced global reads.
extern "C" __global__ void rmsnorm_column_strided(const float* x, const float* weight, float* y, int tokens, int hidden)
{
    __shared__ float stage[256 * 32];
    int t = threadIdx.x;
    int r = blockIdx.x * blockDim.x + t;
    float ss = 0.0f;
    for (int c0 = 0; c0 < hidden; c0 += 32) {
        for (int k = 0; k < 32; ++k) {
            int c = c0 + k;
            stage[t * 32 + k] = (r < tokens && c < hidden) ? x[(size_t)r * hidden + c] : 0.0f;
        }
        for (int k = 0; k < 32; ++k) { float v = stage[t * 32 + k]; ss += v * v; }
    }
    if (r >= tokens) return;
    float rms = rsqrtf(ss / hidden + 1e-6f);
    for (int c = 0; c < hidden; ++c) y[(size_t)r * hidden + c] = x[(size_t)r * hidden + c] * rms * weight[c];
}
