/* Sample covariance of m variables over n observations: data is n x m (row-major, one
   observation per row), cov is m x m with the 1/(n-1) normalization. The means come
   first; the products accumulate one observation (a rank-1 update) at a time so the inner
   loop runs along rows. */
#include <stddef.h>
#include <stdlib.h>

void covariance(int n, int m, const float* data, float* cov)
{
    float* mean = (float*)calloc((size_t)m, sizeof(float));
    float* d = (float*)malloc((size_t)m * sizeof(float));
    for (int k = 0; k < n; ++k)
        for (int j = 0; j < m; ++j)
            mean[j] += data[(size_t)k * m + j];
    for (int j = 0; j < m; ++j)
        mean[j] /= (float)n;
    for (size_t p = 0; p < (size_t)m * m; ++p)
        cov[p] = 0.0f;
    for (int k = 0; k < n; ++k) {
        for (int j = 0; j < m; ++j)
            d[j] = data[(size_t)k * m + j] - mean[j];
        for (int i = 0; i < m; ++i) {
            float di = d[i];
            float* ci = cov + (size_t)i * m;
            for (int j = 0; j < m; ++j)
                ci[j] += di * d[j];
        }
    }
    for (size_t p = 0; p < (size_t)m * m; ++p)
        cov[p] /= (float)(n - 1);
    free(d);
    free(mean);
}
