// Column sums with the rows split over gridDim.y slices: each thread sums its
// column over every gridDim.y-th row and atomically adds into y (zeroed).
extern "C" __global__ void colsum_split_rows(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    float acc = 0.0f;
    for (int r = blockIdx.y; r < rows; r += gridDim.y)
        acc += x[(size_t)r * cols + c];
    atomicAdd(&y[c], acc);
}
