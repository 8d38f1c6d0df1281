/* Dot product in double precision: out[0] = sum x[i] y[i]. */
void dot(int n, const double* x, const double* y, double* out)
{
    double acc = 0.0;
    for (int i = 0; i < n; ++i)
        acc += x[i] * y[i];
    out[0] = acc;
}
