// Naive port: one thread per key, one global atomic per key.
extern "C" __global__ void histogram_naive(int n, int bins, const int* data, int* hist)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[data[i]], 1);
}
