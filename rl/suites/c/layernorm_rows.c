/* Layer normalization of each row of a rows x cols matrix (row-major): subtract the row
   mean, divide by sqrt(variance + eps) (two-pass variance), then scale and shift per
   column: y = (x - mean) / sqrt(var + eps) * gamma + beta. */
#include <math.h>
#include <stddef.h>

void layernorm_rows(int rows, int cols, float eps, const float* x, const float* gamma, const float* beta, float* y)
{
    for (int r = 0; r < rows; ++r) {
        const float* xr = x + (size_t)r * cols;
        float* yr = y + (size_t)r * cols;
        float mean = 0.0f;
        for (int c = 0; c < cols; ++c)
            mean += xr[c];
        mean /= (float)cols;
        float var = 0.0f;
        for (int c = 0; c < cols; ++c) {
            float d = xr[c] - mean;
            var += d * d;
        }
        var /= (float)cols;
        float inv = 1.0f / sqrtf(var + eps);
        for (int c = 0; c < cols; ++c)
            yr[c] = (xr[c] - mean) * inv * gamma[c] + beta[c];
    }
}
