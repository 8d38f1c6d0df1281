/* b = a^T for a row-major a (rows x cols): b is cols x rows. */
#include <stddef.h>

void transpose(int rows, int cols, const float* a, float* b)
{
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            b[(size_t)j * rows + i] = a[(size_t)i * cols + j];
}
