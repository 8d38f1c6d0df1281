// params: kind=column_walk rows=8 block_x=128
// launch: grid=(cdiv(w, 128), cdiv(h, 8)) block=(128)
// Each thread walks 8 rows down one column, keeping three rows of three values in registers.
extern "C" __global__ void stencil2d9_column_walk(int h, int w, const float* x, float* y)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i0 = blockIdx.y * 8;
    if (j >= w) return;
    float a[3], b[3], c[3];
    for (int d = 0; d < 3; ++d) {
        int jj = j + d - 1;
        int ia = i0 - 1, ib = i0;
        a[d] = ia >= 0 && jj >= 0 && jj < w ? x[(size_t)ia * w + jj] : 0.0f;
        b[d] = ib < h && jj >= 0 && jj < w ? x[(size_t)ib * w + jj] : 0.0f;
    }
    for (int i = i0; i < i0 + 8 && i < h; ++i) {
        for (int d = 0; d < 3; ++d) {
            int jj = j + d - 1;
            c[d] = i + 1 < h && jj >= 0 && jj < w ? x[(size_t)(i + 1) * w + jj] : 0.0f;
        }
        size_t p = (size_t)i * w + j;
        if (i == 0 || j == 0 || i == h - 1 || j == w - 1)
            y[p] = b[1];
        else
            y[p] = 0.0625f * (a[0] + 2.0f * a[1] + a[2]) + 0.125f * (b[0] + 2.0f * b[1] + b[2])
                 + 0.0625f * (c[0] + 2.0f * c[1] + c[2]);
        for (int d = 0; d < 3; ++d) {
            a[d] = b[d];
            b[d] = c[d];
        }
    }
}
