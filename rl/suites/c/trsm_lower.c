/* Forward substitution for many right-hand sides: solve L X = B, L lower triangular
   (n x n, row-major; entries above the diagonal are not read), B (n x nrhs, row-major)
   overwritten by X. Row i needs every earlier row of X: the rows are sequential, the
   right-hand sides independent. */
#include <stddef.h>

void trsm_lower(int n, int nrhs, const float* l, float* b)
{
    for (int i = 0; i < n; ++i) {
        float* bi = b + (size_t)i * nrhs;
        for (int k = 0; k < i; ++k) {
            float lik = l[(size_t)i * n + k];
            const float* bk = b + (size_t)k * nrhs;
            for (int j = 0; j < nrhs; ++j)
                bi[j] -= lik * bk[j];
        }
        float lii = l[(size_t)i * n + i];
        for (int j = 0; j < nrhs; ++j)
            bi[j] /= lii;
    }
}
