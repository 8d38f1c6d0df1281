// Naive port: one thread per output: the 3x3 window's in-bounds values summed, divided by 9
// (padding counted).
extern "C" __global__ void avgpool2d_naive(const float* x, float* y, int planes, int h, int w)
{
    size_t n = (size_t)planes * h * w;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int ox = (int)(i % w);
    size_t t = i / w;
    int oy = (int)(t % h);
    size_t p = t / h;
    const float* xp = x + p * h * (size_t)w;
    float s = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int yy = oy + dy, xx = ox + dx;
            if (yy >= 0 && yy < h && xx >= 0 && xx < w) s += xp[(size_t)yy * w + xx];
        }
    y[i] = s / 9.0f;
}
