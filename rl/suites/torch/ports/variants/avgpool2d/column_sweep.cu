// params: kind=column_sweep block_x=32 block_y=4
// launch: grid=(cdiv(w, 32), planes) block=(32, 4)
// Each thread sweeps one column down a quarter of the plane, keeping the last three horizontal
// 3-sums in registers: each input row is loaded once per column (plus one halo row per strip).
__device__ __forceinline__ float hsum3(const float* xp, int yy, int xc, int h, int w)
{
    if (yy < 0 || yy >= h) return 0.0f;
    const float* row = xp + (size_t)yy * w;
    float s = row[xc];
    if (xc > 0) s += row[xc - 1];
    if (xc + 1 < w) s += row[xc + 1];
    return s;
}
extern "C" __global__ void avgpool2d_column_sweep(const float* x, float* y, int planes, int h, int w)
{
    int xc = blockIdx.x * 32 + threadIdx.x;
    int p = blockIdx.y;
    if (xc >= w || p >= planes) return;
    int strip = (h + 3) / 4;
    int y0 = threadIdx.y * strip, y1 = min(h, y0 + strip);
    const float* xp = x + (size_t)p * h * w;
    float* yp = y + (size_t)p * h * w;
    float a = hsum3(xp, y0 - 1, xc, h, w), b = hsum3(xp, y0, xc, h, w);
    for (int yy = y0; yy < y1; ++yy) {
        float c = hsum3(xp, yy + 1, xc, h, w);
        yp[(size_t)yy * w + xc] = (a + b + c) / 9.0f;
        a = b;
        b = c;
    }
}
