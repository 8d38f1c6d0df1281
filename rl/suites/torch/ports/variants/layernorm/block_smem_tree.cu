// params: kind=block_smem_tree vec=1 block_x=256
// launch: grid=(tokens) block=(256)
// One block per row; sum and sum of squares reduced by a textbook shared-memory tree
// (8 levels, a __syncthreads each, half the threads idle from the first level).
extern "C" __global__ void layernorm_block_smem_tree(const float* x, const float* weight, const float* bias, float* y,
                                                     int tokens, int hidden)
{
    __shared__ float s1[256];
    __shared__ float s2[256];
    int r = blockIdx.x;
    if (r >= tokens) return;
    const float* xr = x + (size_t)r * hidden;
    float* yr = y + (size_t)r * hidden;
    int t = threadIdx.x;
    float s = 0.0f, q = 0.0f;
    for (int c = t; c < hidden; c += 256) { float v = xr[c]; s += v; q += v * v; }
    s1[t] = s;
    s2[t] = q;
    __syncthreads();
    for (int h = 128; h > 0; h >>= 1) {
        if (t < h) { s1[t] += s1[t + h]; s2[t] += s2[t + h]; }
        __syncthreads();
    }
    float mean = s1[0] / hidden;
    float var = fmaxf(s2[0] / hidden - mean * mean, 0.0f);
    float rstd = rsqrtf(var + 1e-5f);
    for (int c = t; c < hidden; c += 256) yr[c] = (xr[c] - mean) * rstd * weight[c] + bias[c];
}
