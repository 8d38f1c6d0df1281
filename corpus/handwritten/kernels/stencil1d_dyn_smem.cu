// 7-point 1-D stencil, ITEMS outputs per thread: the block stages
// blockDim.x*ITEMS + 2*RADIUS inputs in dynamic shared memory with a
// cooperative strided copy, then computes from shared memory.
#define RADIUS 3
#define ITEMS 4

__constant__ float c_w[2 * RADIUS + 1] = {0.05f, 0.1f, 0.2f, 0.3f, 0.2f, 0.1f, 0.05f};

extern "C" __global__ void stencil1d_dyn_smem(const float* __restrict__ x, float* __restrict__ y, int n)
{
    extern __shared__ float tile[];
    const int span = blockDim.x * ITEMS;
    const int base = blockIdx.x * span;
    for (int k = threadIdx.x; k < span + 2 * RADIUS; k += blockDim.x) {
        const int g = base - RADIUS + k;
        tile[k] = (g >= 0 && g < n) ? x[g] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const int local = threadIdx.x + j * blockDim.x;
        const int i = base + local;
        if (i >= n) break;
        const float* p = tile + local + RADIUS;
        float acc;
        if (i < RADIUS || i >= n - RADIUS) {
            acc = p[0];
        } else {
            acc = 0.0f;
#pragma unroll
            for (int k = -RADIUS; k <= RADIUS; ++k) acc += c_w[k + RADIUS] * p[k];
        }
        y[i] = acc;
    }
}
