/* The STREAM triad: a = b + s c. */
void triad(int n, float s, const float* b, const float* c, float* a)
{
    for (int i = 0; i < n; ++i)
        a[i] = b[i] + s * c[i];
}
