/* y = A x for a banded n x n matrix stored by diagonals: diagonal d (offset d - band, from
   -band to +band) is the row diags[d * n .. d * n + n), and its entry for row i multiplies
   x[i + d - band]. Entries that would reach outside x are skipped. */
#include <stddef.h>

void banded_matvec(int n, int band, const float* diags, const float* x, float* y)
{
    for (int i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (int d = 0; d <= 2 * band; ++d) {
            int c = i + d - band;
            if (c >= 0 && c < n)
                acc += diags[(size_t)d * n + i] * x[c];
        }
        y[i] = acc;
    }
}
