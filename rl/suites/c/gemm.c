/* C = A B for row-major A (m x k), B (k x n), C (m x n). The i-k-j loop order streams
   rows of B and C, so the inner loop vectorizes. */
#include <stddef.h>

void gemm(int m, int n, int k, const float* a, const float* b, float* c)
{
    for (int i = 0; i < m; ++i) {
        float* ci = c + (size_t)i * n;
        for (int j = 0; j < n; ++j)
            ci[j] = 0.0f;
        for (int p = 0; p < k; ++p) {
            float aip = a[(size_t)i * k + p];
            const float* bp = b + (size_t)p * n;
            for (int j = 0; j < n; ++j)
                ci[j] += aip * bp[j];
        }
    }
}
