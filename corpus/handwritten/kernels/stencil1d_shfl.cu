// 7-point 1-D stencil with warp shuffles instead of shared memory: a warp
// produces 32 consecutive outputs; each lane loads two inputs, a = x[base+lane-3]
// and b = x[base+lane+29], so the warp holds the 38 inputs it needs, and lane l
// fetches window point k from lane (l+k) of a (l+k < 32) or of b.
#define RADIUS 3
#define FULL_MASK 0xffffffffu

__constant__ float c_w[2 * RADIUS + 1] = {0.05f, 0.1f, 0.2f, 0.3f, 0.2f, 0.1f, 0.05f};

extern "C" __global__ void stencil1d_shfl(const float* __restrict__ x, float* __restrict__ y, int n)
{
    const int lane = threadIdx.x & 31;
    const int base = (blockIdx.x * blockDim.x + threadIdx.x) - lane;  // first output of this warp
    const int ia = base + lane - RADIUS;
    const int ib = base + lane + 32 - RADIUS;
    const float a = (ia >= 0 && ia < n) ? x[ia] : 0.0f;
    const float b = (ib >= 0 && ib < n) ? x[ib] : 0.0f;

    float acc = 0.0f;
    float centre = 0.0f;
#pragma unroll
    for (int k = 0; k <= 2 * RADIUS; ++k) {
        const int p = lane + k;
        const float va = __shfl_sync(FULL_MASK, a, p & 31);
        const float vb = __shfl_sync(FULL_MASK, b, p & 31);
        const float v = p < 32 ? va : vb;
        acc += c_w[k] * v;
        if (k == RADIUS) centre = v;
    }
    const int i = base + lane;
    if (i >= n) return;
    y[i] = (i < RADIUS || i >= n - RADIUS) ? centre : acc;
}
