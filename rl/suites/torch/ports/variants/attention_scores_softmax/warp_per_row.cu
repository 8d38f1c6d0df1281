// params: kind=warp_per_row online=1 block_x=256
// launch: grid=(cdiv(seq, 8), bh) block=(256)
// One warp per query row, lanes over keys: raw scores written to p with an online (max, sum) per
// lane, a shuffle merge of the 32 pairs, then one normalizing pass over the row (coalesced).
extern "C" __global__ void attention_scores_softmax_warp_per_row(const float* q, const float* k, float* p, int bh, int seq, int dim)
{
    const float NEG_INF = -__int_as_float(0x7f800000);
    int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    int h = blockIdx.y;
    if (h >= bh || row >= seq) return;
    const float* qr = q + ((size_t)h * seq + row) * dim;
    const float* kh = k + (size_t)h * seq * dim;
    float* pr = p + ((size_t)h * seq + row) * seq;
    float scale = 1.0f / sqrtf((float)dim);
    float mx = NEG_INF, sum = 0.0f;
    for (int j = lane; j < seq; j += 32) {
        const float* kj = kh + (size_t)j * dim;
        float s = 0.0f;
        for (int d = 0; d < dim; ++d) s += qr[d] * kj[d];
        s *= scale;
        pr[j] = s;
        if (s > mx) { sum = sum * expf(mx - s) + 1.0f; mx = s; }
        else sum += expf(s - mx);
    }
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
    for (int j = lane; j < seq; j += 32) pr[j] = expf(pr[j] - mx) * inv;
}
