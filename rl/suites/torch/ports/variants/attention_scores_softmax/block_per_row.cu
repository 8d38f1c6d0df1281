// params: kind=block_per_row smem_scores=1 block_x=256
// launch: grid=(seq, bh) block=(256) smem=(seq + dim) * 4
// One block per query row: q's row (pre-scaled) and the row's seq scores live in dynamic shared
// memory, block-wide max and sum reductions, and p is written once, coalesced.
__device__ __forceinline__ float asm_warp_max(float v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float asm_warp_sum(float v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

extern "C" __global__ void attention_scores_softmax_block_per_row(const float* q, const float* k, float* p, int bh, int seq, int dim)
{
    extern __shared__ float sm[];
    __shared__ float red[32];
    const float NEG_INF = -__int_as_float(0x7f800000);
    float* qs = sm;                 // dim floats
    float* ss = sm + dim;           // seq floats
    int row = blockIdx.x, h = blockIdx.y;
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nwarps = blockDim.x >> 5;
    const float* qr = q + ((size_t)h * seq + row) * dim;
    const float* kh = k + (size_t)h * seq * dim;
    float* pr = p + ((size_t)h * seq + row) * seq;
    float scale = 1.0f / sqrtf((float)dim);
    for (int d = tid; d < dim; d += blockDim.x) qs[d] = qr[d] * scale;
    __syncthreads();
    float mx = NEG_INF;
    for (int j = tid; j < seq; j += blockDim.x) {
        const float* kj = kh + (size_t)j * dim;
        float s = 0.0f;
        for (int d = 0; d < dim; ++d) s += qs[d] * kj[d];
        ss[j] = s;
        mx = fmaxf(mx, s);
    }
    mx = asm_warp_max(mx);
    if (lane == 0) red[warp] = mx;
    __syncthreads();
    mx = asm_warp_max(lane < nwarps ? red[lane] : NEG_INF);
    __syncthreads();
    float sum = 0.0f;
    for (int j = tid; j < seq; j += blockDim.x) {
        float e = expf(ss[j] - mx);
        ss[j] = e;
        sum += e;
    }
    sum = asm_warp_sum(sum);
    if (lane == 0) red[warp] = sum;
    __syncthreads();
    sum = asm_warp_sum(lane < nwarps ? red[lane] : 0.0f);
    float inv = 1.0f / sum;
    for (int j = tid; j < seq; j += blockDim.x) pr[j] = ss[j] * inv;
}
