// Row softmax, one warp per row, "online" max-and-sum in a single pass (the
// running sum is rescaled when the max grows), merged across lanes by xor
// shuffles, then one pass to write.
#define FULL_MASK 0xffffffffu

// (m, s) := merge of two partial softmax states; safe when either is empty (-inf, 0).
__device__ __forceinline__ void online_merge(float& m, float& s, float om, float os)
{
    const float nm = fmaxf(m, om);
    s = (m == nm ? s : s * expf(m - nm)) + (om == nm ? os : os * expf(om - nm));
    m = nm;
}

extern "C" __global__ void softmax_warp_online(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows) return;
    const float* in = x + (size_t)row * cols;
    float* out = y + (size_t)row * cols;

    float m = -__int_as_float(0x7f800000), s = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        const float v = in[c];
        if (v > m) { s = s * expf(m - v) + 1.0f; m = v; }
        else       { s += expf(v - m); }
    }
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) {
        const float om = __shfl_xor_sync(FULL_MASK, m, mask);
        const float os = __shfl_xor_sync(FULL_MASK, s, mask);
        online_merge(m, s, om, os);
    }
    const float inv = 1.0f / s;
    for (int c = lane; c < cols; c += 32) out[c] = expf(in[c] - m) * inv;
}
