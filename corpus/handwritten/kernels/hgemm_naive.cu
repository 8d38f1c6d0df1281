// C = A B for half A [m, k] and B [k, n] (row-major) into float C: one thread an
// output, the products and the sum in fp32 on the CUDA cores.
#include <cuda_fp16.h>

extern "C" __global__ void hgemm_naive(const __half* __restrict__ A, const __half* __restrict__ B,
                                       float* __restrict__ C, int m, int n, int k)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    float acc = 0.0f;
    for (int i = 0; i < k; ++i)
        acc = fmaf(__half2float(A[(size_t)row * k + i]), __half2float(B[(size_t)i * n + col]), acc);
    C[(size_t)row * n + col] = acc;
}
