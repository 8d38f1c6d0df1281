// params: kind=smem_tile block_x=32 block_y=8
// launch: grid=(cdiv(n, 32), cdiv(n, 8)) block=(32, 8)
// The block's tile plus a one-point halo staged in shared memory.
extern "C" __global__ void jacobi2d_smem_tile(int n, const float* a, float* b)
{
    __shared__ float t[10][34];
    int j0 = blockIdx.x * 32 - 1, i0 = blockIdx.y * 8 - 1;
    for (int k = threadIdx.y * 32 + threadIdx.x; k < 10 * 34; k += 256) {
        int r = k / 34, c = k % 34;
        int gi = i0 + r, gj = j0 + c;
        t[r][c] = gi >= 0 && gi < n && gj >= 0 && gj < n ? a[(size_t)gi * n + gj] : 0.0f;
    }
    __syncthreads();
    int j = blockIdx.x * 32 + threadIdx.x;
    int i = blockIdx.y * 8 + threadIdx.y;
    if (i >= n || j >= n) return;
    int r = threadIdx.y + 1, c = threadIdx.x + 1;
    size_t p = (size_t)i * n + j;
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1)
        b[p] = t[r][c];
    else
        b[p] = 0.2f * (t[r][c] + t[r][c - 1] + t[r][c + 1] + t[r - 1][c] + t[r + 1][c]);
}
