// Naive port: one thread per element, each adding its product into out[0] with an atomic.
extern "C" __global__ void dot_naive(int n, const double* x, const double* y, double* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, x[i] * y[i]);
}
