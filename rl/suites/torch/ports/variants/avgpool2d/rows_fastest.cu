// params: kind=rows_fastest block_x=256
// launch: grid=(cdiv(planes * h * w, 256)) block=(256)
// A poor port: threads numbered row-fastest (walking down columns), so a warp's loads and stores
// are w floats apart: every access is uncoalesced.
extern "C" __global__ void avgpool2d_rows_fastest(const float* x, float* y, int planes, int h, int w)
{
    size_t n = (size_t)planes * h * w;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int oy = (int)(t % h);
    size_t q = t / h;
    int ox = (int)(q % w);
    size_t p = q / w;
    const float* xp = x + p * h * (size_t)w;
    float s = 0.0f;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int yy = oy + dy, xx = ox + dx;
            if (yy >= 0 && yy < h && xx >= 0 && xx < w) s += xp[(size_t)yy * w + xx];
        }
    y[(p * h + oy) * (size_t)w + ox] = s / 9.0f;
}
