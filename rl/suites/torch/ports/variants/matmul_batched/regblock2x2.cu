// params: kind=register_blocked tile=32 per_thread=4 block_x=16 block_y=16
// launch: grid=(cdiv(n, 32), cdiv(m, 32), batch) block=(16, 16)
// 32x32 tile of C[z] per block, 2x2 outputs per thread: each shared value read feeds 2 multiply-adds.
extern "C" __global__ void matmul_batched_regblock2x2(const float* a, const float* b, float* c, int batch, int m, int k, int n)
{
    __shared__ float as[32][33];            // as[r][q]: A[z][row0 + r][p0 + q]
    __shared__ float bs[32][32];            // bs[q][cc]: B[z][p0 + q][col0 + cc]
    int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx, z = blockIdx.z;
    int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
    const float* az = a + (size_t)z * m * k;
    const float* bz = b + (size_t)z * k * n;
    float* cz = c + (size_t)z * m * n;
    float acc00 = 0.0f, acc01 = 0.0f, acc10 = 0.0f, acc11 = 0.0f;
    for (int p0 = 0; p0 < k; p0 += 32) {
        for (int e = tid; e < 32 * 32; e += 256) {
            int r = e >> 5, q = e & 31;
            int gr = row0 + r, gq = p0 + q;
            as[r][q] = gr < m && gq < k ? az[(size_t)gr * k + gq] : 0.0f;
            int gb = p0 + r, gc = col0 + q;
            bs[r][q] = gb < k && gc < n ? bz[(size_t)gb * n + gc] : 0.0f;
        }
        __syncthreads();
        for (int q = 0; q < 32; ++q) {
            float a0 = as[ty][q], a1 = as[ty + 16][q];
            float b0 = bs[q][tx], b1 = bs[q][tx + 16];
            acc00 += a0 * b0; acc01 += a0 * b1;
            acc10 += a1 * b0; acc11 += a1 * b1;
        }
        __syncthreads();
    }
    if (z >= batch) return;
    int r0 = row0 + ty, r1 = row0 + ty + 16, c0 = col0 + tx, c1 = col0 + tx + 16;
    if (r0 < m && c0 < n) cz[(size_t)r0 * n + c0] = acc00;
    if (r0 < m && c1 < n) cz[(size_t)r0 * n + c1] = acc01;
    if (r1 < m && c0 < n) cz[(size_t)r1 * n + c0] = acc10;
    if (r1 < m && c1 < n) cz[(size_t)r1 * n + c1] = acc11;
}
