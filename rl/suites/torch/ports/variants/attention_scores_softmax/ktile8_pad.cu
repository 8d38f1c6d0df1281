// params: kind=key_tiled rows=8 pad=1 block_x=32 block_y=8
// launch: grid=(cdiv(seq, 8), bh) block=(32, 8) smem=(8 * dim + 32 * (dim + 1)) * 4
// 8 query rows per block (one warp each) share 32-key tiles of k staged in shared memory, rows
// padded to dim + 1 floats so lane j's reads ks[j][d] hit 32 banks; online softmax per lane, raw scores
// written to p, then a normalizing pass.
extern "C" __global__ void attention_scores_softmax_ktile8_pad(const float* q, const float* k, float* p, int bh, int seq, int dim)
{
    extern __shared__ float sm[];
    const float NEG_INF = -__int_as_float(0x7f800000);
    const int ROWS = 8, LD = dim + 1;
    float* qs = sm;                 // qs[y * dim + d]: the block's query rows, pre-scaled
    float* ks = sm + ROWS * dim;    // ks[j * LD + d]: a tile of 32 keys
    int lane = threadIdx.x, wy = threadIdx.y, tid = wy * 32 + lane;
    int h = blockIdx.y;
    int row0 = blockIdx.x * ROWS, row = row0 + wy;
    const float* qh = q + (size_t)h * seq * dim;
    const float* kh = k + (size_t)h * seq * dim;
    float scale = 1.0f / sqrtf((float)dim);
    for (int e = tid; e < ROWS * dim; e += ROWS * 32) {
        int r = row0 + e / dim;
        qs[e] = r < seq ? qh[(size_t)row0 * dim + e] * scale : 0.0f;
    }
    float mx = NEG_INF, sum = 0.0f;
    float* pr = p + ((size_t)h * seq + row) * seq;
    for (int j0 = 0; j0 < seq; j0 += 32) {
        __syncthreads();
        for (int e = tid; e < 32 * dim; e += ROWS * 32) {
            int j = e / dim, d = e - j * dim;
            ks[j * LD + d] = j0 + j < seq ? kh[(size_t)(j0 + j) * dim + d] : 0.0f;
        }
        __syncthreads();
        int j = j0 + lane;
        if (row < seq && j < seq) {
            const float* qv = qs + wy * dim;
            const float* kv = ks + lane * LD;
            float s = 0.0f;
            for (int d = 0; d < dim; ++d) s += qv[d] * kv[d];
            pr[j] = s;
            if (s > mx) { sum = sum * expf(mx - s) + 1.0f; mx = s; }
            else sum += expf(s - mx);
        }
    }
    if (row >= seq) return;
    for (int o = 16; o > 0; o >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, mx, o);
        float s2 = __shfl_xor_sync(0xffffffffu, sum, o);
        float m = fmaxf(mx, m2);
        float a = (mx == NEG_INF) ? 0.0f : sum * expf(mx - m);
        float b = (m2 == NEG_INF) ? 0.0f : s2 * expf(m2 - m);
        sum = a + b;
        mx = m;
    }
    float inv = 1.0f / sum;
    for (int jj = lane; jj < seq; jj += 32) pr[jj] = expf(pr[jj] - mx) * inv;
}
