// 7-point 1-D stencil, OUT_PER_THREAD consecutive outputs per thread from a
// register window loaded through __ldg; weights as macros.
#define R 3
#define OUT_PER_THREAD 4
#define WINDOW (OUT_PER_THREAD + 2 * R)
#define W0 0.05f
#define W1 0.1f
#define W2 0.2f
#define W3 0.3f

extern "C" __global__ void stencil1d_regs(const float* __restrict__ x, float* __restrict__ y, int n)
{
    const int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * OUT_PER_THREAD;
    if (i0 >= n) return;
    float win[WINDOW];
#pragma unroll
    for (int k = 0; k < WINDOW; ++k) {
        const int j = i0 - R + k;
        win[k] = (j >= 0 && j < n) ? __ldg(x + j) : 0.0f;
    }
    const float w[2 * R + 1] = {W0, W1, W2, W3, W2, W1, W0};
#pragma unroll
    for (int o = 0; o < OUT_PER_THREAD; ++o) {
        const int i = i0 + o;
        if (i >= n) break;
        float acc;
        if (i < R || i >= n - R) {
            acc = win[o + R];
        } else {
            acc = 0.0f;
#pragma unroll
            for (int k = 0; k < 2 * R + 1; ++k) acc += w[k] * win[o + k];
        }
        y[i] = acc;
    }
}
