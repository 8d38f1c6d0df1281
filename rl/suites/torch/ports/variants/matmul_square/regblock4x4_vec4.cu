// params: kind=register_blocked tile=64 per_thread=16 vec=4 block_x=16 block_y=16
// launch: grid=(cdiv(n, 64), cdiv(n, 64)) block=(16, 16)
// The 4x4 register-blocked kernel with float4 global loads of both tiles (one float4 of A and one
// of B per thread per k step) when n % 4 == 0; guarded scalar loads otherwise.
extern "C" __global__ void matmul_square_regblock4x4_vec4(const float* a, const float* b, float* c, int n)
{
    __shared__ float as[16][64 + 1];        // as[q][r]: A[row0 + r][p0 + q]
    __shared__ float bs[16][64];            // bs[q][cc]: B[p0 + q][col0 + cc]
    int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    bool vec = (n & 3) == 0;
    float acc[4][4];
    for (int r = 0; r < 4; ++r)
        for (int s = 0; s < 4; ++s) acc[r][s] = 0.0f;
    int ar = tid >> 2, aq = (tid & 3) * 4;      // A tile: row ar, columns aq..aq+3
    int bq = tid >> 4, bc = (tid & 15) * 4;     // B tile: row bq, columns bc..bc+3
    for (int p0 = 0; p0 < n; p0 += 16) {
        int gr = row0 + ar, gq = p0 + aq;
        if (vec && gr < n && gq + 3 < n) {
            float4 v = *reinterpret_cast<const float4*>(a + (size_t)gr * n + gq);
            as[aq][ar] = v.x; as[aq + 1][ar] = v.y; as[aq + 2][ar] = v.z; as[aq + 3][ar] = v.w;
        } else {
            for (int i = 0; i < 4; ++i)
                as[aq + i][ar] = gr < n && gq + i < n ? a[(size_t)gr * n + gq + i] : 0.0f;
        }
        int gb = p0 + bq, gc = col0 + bc;
        if (vec && gb < n && gc + 3 < n) {
            float4 v = *reinterpret_cast<const float4*>(b + (size_t)gb * n + gc);
            bs[bq][bc] = v.x; bs[bq][bc + 1] = v.y; bs[bq][bc + 2] = v.z; bs[bq][bc + 3] = v.w;
        } else {
            for (int i = 0; i < 4; ++i)
                bs[bq][bc + i] = gb < n && gc + i < n ? b[(size_t)gb * n + gc + i] : 0.0f;
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
    for (int r = 0; r < 4; ++r) {
        int row = row0 + ty + 16 * r;
        for (int s = 0; s < 4; ++s) {
            int col = col0 + tx + 16 * s;
            if (row < n && col < n) c[(size_t)row * n + col] = acc[r][s];
        }
    }
}
