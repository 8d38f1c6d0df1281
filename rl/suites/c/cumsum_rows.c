/* Inclusive prefix sum along each row of a rows x cols matrix (row-major):
   y[r][c] = x[r][0] + ... + x[r][c]. */
#include <stddef.h>

void cumsum_rows(int rows, int cols, const float* x, float* y)
{
    for (int r = 0; r < rows; ++r) {
        const float* xr = x + (size_t)r * cols;
        float* yr = y + (size_t)r * cols;
        float acc = 0.0f;
        for (int c = 0; c < cols; ++c) {
            acc += xr[c];
            yr[c] = acc;
        }
    }
}
