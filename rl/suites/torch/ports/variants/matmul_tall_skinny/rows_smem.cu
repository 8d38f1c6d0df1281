// params: kind=rows_smem rows=32 block_x=256
// launch: grid=(cdiv(m, 32)) block=(256) smem=(32 * k + k * n) * 4
// All of B (k x n) and a contiguous 32-row slab of A in dynamic shared memory, both loaded with
// contiguous coalesced reads; each thread then produces outputs of the 32 x n slab of C.
extern "C" __global__ void matmul_tall_skinny_rows_smem(const float* a, const float* b, float* c, int m, int k, int n)
{
    extern __shared__ float sm[];
    float* as = sm;                 // as[r * k + q]: A[row0 + r][q]
    float* bs = sm + 32 * k;        // bs[q * n + cc]: B[q][cc]
    int tid = threadIdx.x;
    int row0 = blockIdx.x * 32;
    int rows = min(32, m - row0);
    for (int e = tid; e < k * n; e += blockDim.x) bs[e] = b[e];
    for (int e = tid; e < 32 * k; e += blockDim.x)
        as[e] = e < rows * k ? a[(size_t)row0 * k + e] : 0.0f;
    __syncthreads();
    for (int e = tid; e < rows * n; e += blockDim.x) {
        int r = e / n, cc = e - r * n;
        const float* ar = as + r * k;
        float acc = 0.0f;
        for (int q = 0; q < k; ++q) acc += ar[q] * bs[q * n + cc];
        c[(size_t)(row0 + r) * n + cc] = acc;
    }
}
