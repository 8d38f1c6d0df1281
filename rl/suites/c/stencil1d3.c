/* 1-D three-point smoothing: y[i] = x[i-1]/4 + x[i]/2 + x[i+1]/4; the two end points are copied. */
void stencil1d3(int n, const float* x, float* y)
{
    y[0] = x[0];
    y[n - 1] = x[n - 1];
    for (int i = 1; i < n - 1; ++i)
        y[i] = 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];
}
