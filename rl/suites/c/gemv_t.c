/* y = alpha A^T x + beta y for a row-major A (rows x cols): y has cols entries.
   Written the way the layout wants on a CPU: scale y, then add alpha x[i] times row i. */
#include <stddef.h>

void gemv_t(int rows, int cols, float alpha, float beta, const float* a, const float* x, float* y)
{
    for (int j = 0; j < cols; ++j)
        y[j] *= beta;
    for (int i = 0; i < rows; ++i) {
        float axi = alpha * x[i];
        const float* ai = a + (size_t)i * cols;
        for (int j = 0; j < cols; ++j)
            y[j] += axi * ai[j];
    }
}
