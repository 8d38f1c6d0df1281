/* Histogram of integer keys: hist[b] = how many data[i] equal b, for keys in [0, bins). */
void histogram(int n, int bins, const int* data, int* hist)
{
    for (int b = 0; b < bins; ++b)
        hist[b] = 0;
    for (int i = 0; i < n; ++i)
        hist[data[i]] += 1;
}
