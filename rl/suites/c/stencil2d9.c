/* 3 x 3 binomial blur on an h x w grid (row-major): weights (1 2 1) x (1 2 1) / 16 on the
   interior, border points copied. */
#include <stddef.h>

void stencil2d9(int h, int w, const float* x, float* y)
{
    for (int i = 0; i < h; ++i) {
        for (int j = 0; j < w; ++j) {
            size_t p = (size_t)i * w + j;
            if (i == 0 || j == 0 || i == h - 1 || j == w - 1) {
                y[p] = x[p];
                continue;
            }
            const float* up = x + p - w;
            const float* mid = x + p;
            const float* dn = x + p + w;
            y[p] = 0.0625f * (up[-1] + 2.0f * up[0] + up[1])
                 + 0.125f * (mid[-1] + 2.0f * mid[0] + mid[1])
                 + 0.0625f * (dn[-1] + 2.0f * dn[0] + dn[1]);
        }
    }
}
