/* Back substitution for many right-hand sides: solve U X = B, U upper triangular
   (n x n, row-major; entries below the diagonal are not read), B (n x nrhs, row-major)
   overwritten by X. The rows go from the last to the first. */
#include <stddef.h>

void trsm_upper(int n, int nrhs, const float* u, float* b)
{
    for (int i = n - 1; i >= 0; --i) {
        float* bi = b + (size_t)i * nrhs;
        for (int k = i + 1; k < n; ++k) {
            float uik = u[(size_t)i * n + k];
            const float* bk = b + (size_t)k * nrhs;
            for (int j = 0; j < nrhs; ++j)
                bi[j] -= uik * bk[j];
        }
        float uii = u[(size_t)i * n + i];
        for (int j = 0; j < nrhs; ++j)
            bi[j] /= uii;
    }
}
