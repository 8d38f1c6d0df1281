/* Softmax of each row of a rows x cols matrix (row-major), shifted by the row maximum so
   expf never overflows: y = exp(x - max) / sum(exp(x - max)). */
#include <math.h>
#include <stddef.h>

void softmax_rows(int rows, int cols, const float* x, float* y)
{
    for (int r = 0; r < rows; ++r) {
        const float* xr = x + (size_t)r * cols;
        float* yr = y + (size_t)r * cols;
        float mx = xr[0];
        for (int c = 1; c < cols; ++c)
            mx = xr[c] > mx ? xr[c] : mx;
        float sum = 0.0f;
        for (int c = 0; c < cols; ++c) {
            yr[c] = expf(xr[c] - mx);
            sum += yr[c];
        }
        float inv = 1.0f / sum;
        for (int c = 0; c < cols; ++c)
            yr[c] *= inv;
    }
}
