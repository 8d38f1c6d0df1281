/* Fourth-order second derivative on a unit grid, scaled by s:
   y[i] = s (-x[i-2] + 16 x[i-1] - 30 x[i] + 16 x[i+1] - x[i+2]) / 12, zero at the two
   points next to each end. */
void stencil1d5(int n, float s, const float* x, float* y)
{
    float c = s / 12.0f;
    for (int i = 0; i < 2 && i < n; ++i) {
        y[i] = 0.0f;
        y[n - 1 - i] = 0.0f;
    }
    for (int i = 2; i < n - 2; ++i)
        y[i] = c * (-x[i - 2] + 16.0f * x[i - 1] - 30.0f * x[i] + 16.0f * x[i + 1] - x[i + 2]);
}
