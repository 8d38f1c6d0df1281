/* One Jacobi sweep of the 2-D Laplace equation on an n x n grid (row-major): each interior
   point becomes the mean of itself and its four neighbours; the boundary is copied. */
#include <stddef.h>

void jacobi2d(int n, const float* a, float* b)
{
    for (int j = 0; j < n; ++j) {
        b[j] = a[j];
        b[(size_t)(n - 1) * n + j] = a[(size_t)(n - 1) * n + j];
    }
    for (int i = 1; i < n - 1; ++i) {
        size_t r = (size_t)i * n;
        b[r] = a[r];
        b[r + n - 1] = a[r + n - 1];
        for (int j = 1; j < n - 1; ++j)
            b[r + j] = 0.2f * (a[r + j] + a[r + j - 1] + a[r + j + 1] + a[r + j - n] + a[r + j + n]);
    }
}
