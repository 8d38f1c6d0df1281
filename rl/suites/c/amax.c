/* Largest absolute value of an array (the infinity norm): out[0] = max |x[i]|. */
#include <math.h>

void amax(int n, const float* x, float* out)
{
    float m = 0.0f;
    for (int i = 0; i < n; ++i) {
        float a = fabsf(x[i]);
        if (a > m) m = a;
    }
    out[0] = m;
}
