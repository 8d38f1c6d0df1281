/* 2-D convolution (cross-correlation, as in neural networks) of an h x w image with a
   5 x 5 filter, zero outside the image: y[i][j] = sum k[a][b] x[i+a-2][j+b-2]. */
#include <stddef.h>

void conv2d(int h, int w, const float* x, const float* k, float* y)
{
    for (int i = 0; i < h; ++i) {
        for (int j = 0; j < w; ++j) {
            float acc = 0.0f;
            for (int a = 0; a < 5; ++a) {
                int r = i + a - 2;
                if (r < 0 || r >= h) continue;
                for (int b = 0; b < 5; ++b) {
                    int c = j + b - 2;
                    if (c < 0 || c >= w) continue;
                    acc += k[a * 5 + b] * x[(size_t)r * w + c];
                }
            }
            y[(size_t)i * w + j] = acc;
        }
    }
}
