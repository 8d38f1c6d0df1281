// Naive port: one thread per element (tanh).
extern "C" __global__ void tanh_naive(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = tanhf(v);
    }
}
