// params: kind=vec4_cols block_x=256
// launch: grid=(cdiv(nb * nc, 1024)) block=(256)
// The naive loop with four adjacent columns per thread as float4 when nc % 4 == 0 (scalar otherwise).
// Looks better, is worse: only B*C/4 threads (4096 at medium) and one serial R loop each, too few
// loads in flight to cover DRAM latency.
extern "C" __global__ void mean_middle_dim_vec4_cols(const float* x, float* y, int nb, int nr, int nc)
{
    int n = nb * nc;
    int e = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (e >= n) return;
    if ((nc & 3) == 0) {
        int b = e / nc, c = e % nc;
        float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int r = 0; r < nr; ++r) {
            float4 q = *reinterpret_cast<const float4*>(x + ((size_t)b * nr + r) * nc + c);
            s.x += q.x; s.y += q.y; s.z += q.z; s.w += q.w;
        }
        float inv = 1.0f / nr;
        s.x *= inv; s.y *= inv; s.z *= inv; s.w *= inv;
        *reinterpret_cast<float4*>(y + e) = s;
    } else {
        for (int o = e; o < e + 4 && o < n; ++o) {
            int b = o / nc, c = o % nc;
            float s = 0.0f;
            for (int r = 0; r < nr; ++r) s += x[((size_t)b * nr + r) * nc + c];
            y[o] = s / nr;
        }
    }
}
