// Naive port: one thread per output (token t, intermediate j): both dot products over hidden straight
// from global memory, then silu(gate) * up.
extern "C" __global__ void swiglu_naive(const float* x, const float* wg, const float* wu, float* y,
                                        int tokens, int hidden, int inter)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int t = blockIdx.y * blockDim.y + threadIdx.y;
    if (t >= tokens || j >= inter) return;
    const float* xr = x + (size_t)t * hidden;
    const float* gr = wg + (size_t)j * hidden;
    const float* ur = wu + (size_t)j * hidden;
    float g = 0.0f, u = 0.0f;
    for (int k = 0; k < hidden; ++k) {
        g += xr[k] * gr[k];
        u += xr[k] * ur[k];
    }
    y[(size_t)t * inter + j] = g / (1.0f + expf(-g)) * u;
}
