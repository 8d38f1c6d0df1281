// params: kind=warp_per_row shfl=1 block_x=256
// launch: grid=(cdiv(m, 8)) block=(256)
// One warp per row of C: the lanes load 32 consecutive elements of A's row (coalesced) and broadcast
// them with __shfl_sync; each lane accumulates two columns (lane, lane + 32) reading B rows from L1.
extern "C" __global__ void matmul_tall_skinny_warp_per_row_shfl(const float* a, const float* b, float* c, int m, int k, int n)
{
    int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= m) return;
    const float* ar = a + (size_t)row * k;
    for (int c0 = 0; c0 < n; c0 += 64) {
        int col0 = c0 + lane, col1 = c0 + lane + 32;
        float acc0 = 0.0f, acc1 = 0.0f;
        for (int q0 = 0; q0 < k; q0 += 32) {
            float av = q0 + lane < k ? ar[q0 + lane] : 0.0f;
            int len = min(32, k - q0);
            for (int qq = 0; qq < len; ++qq) {
                float aq = __shfl_sync(0xffffffffu, av, qq);
                const float* br = b + (size_t)(q0 + qq) * n;
                if (col0 < n) acc0 += aq * br[col0];
                if (col1 < n) acc1 += aq * br[col1];
            }
        }
        if (col0 < n) c[(size_t)row * n + col0] = acc0;
        if (col1 < n) c[(size_t)row * n + col1] = acc1;
    }
}
