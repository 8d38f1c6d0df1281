// params: kind=tiled tile=32 pad=1 block_x=32 block_y=32
// launch: grid=(cdiv(inter, 32), cdiv(tokens, 32)) block=(32, 32)
// 32x32 tiles of x, Wg and Wu staged in shared memory (each loaded along k, coalesced); both dot
// products from the same x tile. Padded rows (33 floats): conflict-free column reads.
extern "C" __global__ void swiglu_tiled32_pad(const float* x, const float* wg, const float* wu, float* y,
                                        int tokens, int hidden, int inter)
{
    __shared__ float xs[32][33];
    __shared__ float gs[32][33];
    __shared__ float us[32][33];
    int tx = threadIdx.x, ty = threadIdx.y;
    int t0 = blockIdx.y * 32, j0 = blockIdx.x * 32;
    float ag = 0.0f, au = 0.0f;
    for (int k0 = 0; k0 < hidden; k0 += 32) {
        int k = k0 + tx;
        bool kin = k < hidden;
        xs[ty][tx] = (t0 + ty < tokens && kin) ? x[(size_t)(t0 + ty) * hidden + k] : 0.0f;
        gs[ty][tx] = (j0 + ty < inter && kin) ? wg[(size_t)(j0 + ty) * hidden + k] : 0.0f;
        us[ty][tx] = (j0 + ty < inter && kin) ? wu[(size_t)(j0 + ty) * hidden + k] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < 32; ++kk) {
            float xv = xs[ty][kk];
            ag += xv * gs[tx][kk];
            au += xv * us[tx][kk];
        }
        __syncthreads();
    }
    int t = t0 + ty, j = j0 + tx;
    if (t < tokens && j < inter) y[(size_t)t * inter + j] = ag / (1.0f + expf(-ag)) * au;
}
