// Naive port: one thread per element.
extern "C" __global__ void triad_naive(int n, float s, const float* b, const float* c, float* a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] + s * c[i];
}
