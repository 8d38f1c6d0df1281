// params: kind=elementwise vec=2 block_x=256
// launch: grid=(cdiv(planes * (h / 2) * (w / 2), 256)) block=(256)
// One thread per output, each window row read as one float2 (8-byte aligned when w is even;
// scalar loads otherwise).
extern "C" __global__ void maxpool2d_vec2(const float* x, float* y, int planes, int h, int w)
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
    if ((w & 1) == 0) {
        float2 a = *reinterpret_cast<const float2*>(xp);
        float2 b = *reinterpret_cast<const float2*>(xp + w);
        y[i] = fmaxf(fmaxf(a.x, a.y), fmaxf(b.x, b.y));
    } else {
        y[i] = fmaxf(fmaxf(xp[0], xp[1]), fmaxf(xp[w], xp[w + 1]));
    }
}
