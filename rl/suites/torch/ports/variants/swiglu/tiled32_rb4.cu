// params: kind=register_blocked tile=32 pad=1 per_thread=4 block_x=32 block_y=8
// launch: grid=(cdiv(inter, 32), cdiv(tokens, 32)) block=(32, 8)
// 32x32 output tiles from 256 threads: each thread keeps 4 tokens (ty, ty+8, ty+16, ty+24) of one
// column j in registers, so every Wg/Wu value read from shared memory feeds 4 multiply-adds each.
extern "C" __global__ void swiglu_tiled32_rb4(const float* x, const float* wg, const float* wu, float* y,
                                        int tokens, int hidden, int inter)
{
    __shared__ float xs[32][33];
    __shared__ float gs[32][33];
    __shared__ float us[32][33];
    int tx = threadIdx.x, ty = threadIdx.y;
    int t0 = blockIdx.y * 32, j0 = blockIdx.x * 32;
    float ag[4] = {0.0f, 0.0f, 0.0f, 0.0f}, au[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < hidden; k0 += 32) {
        int k = k0 + tx;
        bool kin = k < hidden;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            int r = ty + 8 * i;
            xs[r][tx] = (t0 + r < tokens && kin) ? x[(size_t)(t0 + r) * hidden + k] : 0.0f;
            gs[r][tx] = (j0 + r < inter && kin) ? wg[(size_t)(j0 + r) * hidden + k] : 0.0f;
            us[r][tx] = (j0 + r < inter && kin) ? wu[(size_t)(j0 + r) * hidden + k] : 0.0f;
        }
        __syncthreads();
#pragma unroll 8
        for (int kk = 0; kk < 32; ++kk) {
            float g = gs[tx][kk], u = us[tx][kk];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                float xv = xs[ty + 8 * i][kk];
                ag[i] += xv * g;
                au[i] += xv * u;
            }
        }
        __syncthreads();
    }
    int j = j0 + tx;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        int t = t0 + ty + 8 * i;
        if (t < tokens && j < inter) y[(size_t)t * inter + j] = ag[i] / (1.0f + expf(-ag[i])) * au[i];
    }
}
