// params: kind=register_blocked tile=64 per_thread=16 block_x=16 block_y=16
// launch: grid=(cdiv(n, 64), cdiv(m, 64), batch) block=(16, 16)
// 64x64 tile of C[z] per block, 4x4 outputs per thread held in registers, k in steps of 16.
extern "C" __global__ void matmul_batched_regblock4x4(const float* a, const float* b, float* c, int batch, int m, int k, int n)
{
    __shared__ float as[16][64 + 1];        // as[q][r]: A[z][row0 + r][p0 + q]
    __shared__ float bs[16][64];            // bs[q][cc]: B[z][p0 + q][col0 + cc]
    int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx, z = blockIdx.z;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    const float* az = a + (size_t)z * m * k;
    const float* bz = b + (size_t)z * k * n;
    float* cz = c + (size_t)z * m * n;
    float acc[4][4];
    for (int r = 0; r < 4; ++r)
        for (int s = 0; s < 4; ++s) acc[r][s] = 0.0f;
    for (int p0 = 0; p0 < k; p0 += 16) {
        for (int e = tid; e < 64 * 16; e += 256) {
            int r = e >> 4, q = e & 15;             // A tile: 64 rows x 16 columns
            int gr = row0 + r, gq = p0 + q;
            as[q][r] = gr < m && gq < k ? az[(size_t)gr * k + gq] : 0.0f;
            int qb = e >> 6, cc = e & 63;           // B tile: 16 rows x 64 columns
            int gb = p0 + qb, gc = col0 + cc;
            bs[qb][cc] = gb < k && gc < n ? bz[(size_t)gb * n + gc] : 0.0f;
        }
        __syncthreads();
        for (int q = 0; q < 16; ++q) {
            float av[4], bv[4];
            for (int r = 0; r < 4; ++r) av[r] = as[q][ty + 16 * r];
            for (int s = 0; s < 4; ++s) bv[s] = bs[q][tx + 16 * s];
            for (int r = 0; r < 4; ++r)
                for (int s = 0; s < 4; ++s) acc[r][s] += av[r] * bv[s];
        }
        __syncthreads();
    }
    if (z >= batch) return;
    for (int r = 0; r < 4; ++r) {
        int row = row0 + ty + 16 * r;
        for (int s = 0; s < 4; ++s) {
            int col = col0 + tx + 16 * s;
            if (row < m && col < n) cz[(size_t)row * n + col] = acc[r][s];
        }
    }
}
