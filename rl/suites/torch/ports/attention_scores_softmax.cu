// Naive port: one thread per query row (bh * seq rows): scores into p with the running max, then
// exp and sum in place, then the division.
extern "C" __global__ void attention_scores_softmax_naive(const float* q, const float* k, float* p, int bh, int seq, int dim)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= bh * seq) return;
    int h = r / seq;
    const float* qr = q + (size_t)r * dim;
    const float* kh = k + (size_t)h * seq * dim;
    float* pr = p + (size_t)r * seq;
    float scale = 1.0f / sqrtf((float)dim);
    float mx = -__int_as_float(0x7f800000);
    for (int j = 0; j < seq; ++j) {
        float s = 0.0f;
        for (int d = 0; d < dim; ++d) s += qr[d] * kh[(size_t)j * dim + d];
        s *= scale;
        pr[j] = s;
        mx = fmaxf(mx, s);
    }
    float sum = 0.0f;
    for (int j = 0; j < seq; ++j) {
        float e = expf(pr[j] - mx);
        pr[j] = e;
        sum += e;
    }
    float inv = 1.0f / sum;
    for (int j = 0; j < seq; ++j) pr[j] *= inv;
}
