/* Pearson correlation of m variables over n observations: data is n x m (row-major),
   corr is m x m. Columns are standardized into a copy first (a column of zero spread is
   left centred, not divided), then corr = Z^T Z / n. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

void correlation(int n, int m, const float* data, float* corr)
{
    float* mean = (float*)calloc((size_t)m, sizeof(float));
    float* sd = (float*)calloc((size_t)m, sizeof(float));
    float* z = (float*)malloc((size_t)n * m * sizeof(float));
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < m; ++j)
            mean[j] += data[(size_t)k * m + j];
    for (int j = 0; j < m; ++j)
        mean[j] /= (float)n;
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < m; ++j) {
            float c = data[(size_t)k * m + j] - mean[j];
            sd[j] += c * c;
        }
    for (int j = 0; j < m; ++j) {
        sd[j] = sqrtf(sd[j] / (float)n);
        if (sd[j] <= 1e-6f) sd[j] = 1.0f;
    }
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < m; ++j)
            z[(size_t)k * m + j] = (data[(size_t)k * m + j] - mean[j]) / sd[j];
    for (size_t p = 0; p < (size_t)m * m; ++p)
        corr[p] = 0.0f;
    for (int k = 0; k < n; ++k) {
        const float* zk = z + (size_t)k * m;
        for (int i = 0; i < m; ++i) {
            float zi = zk[i];
            float* ci = corr + (size_t)i * m;
            for (int j = 0; j < m; ++j)
                ci[j] += zi * zk[j];
        }
    }
    for (size_t p = 0; p < (size_t)m * m; ++p)
        corr[p] /= (float)n;
    free(z);
    free(sd);
    free(mean);
}
