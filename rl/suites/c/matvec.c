/* y = A x for a row-major A (rows x cols): one dot product per row. */
#include <stddef.h>

void matvec(int rows, int cols, const float* a, const float* x, float* y)
{
    for (int i = 0; i < rows; ++i) {
        const float* ai = a + (size_t)i * cols;
        float acc = 0.0f;
        for (int j = 0; j < cols; ++j)
            acc += ai[j] * x[j];
        y[i] = acc;
    }
}
