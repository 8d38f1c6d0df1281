// Naive port: one thread per output: the max of its 2x2 input window.
extern "C" __global__ void maxpool2d_naive(const float* x, float* y, int planes, int h, int w)
{
    int oh = h / 2, ow = w / 2;
    size_t n = (size_t)planes * oh * ow;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int ox = (int)(i % ow);
    size_t t = i / ow;
    int oy = (int)(t % oh);
    size_t p = t / oh;
    const float* xp = x + (p * h + 2 * oy) * (size_t)w + 2 * ox;
    y[i] = fmaxf(fmaxf(xp[0], xp[1]), fmaxf(xp[w], xp[w + 1]));
}
