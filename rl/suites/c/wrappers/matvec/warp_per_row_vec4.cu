// params: kind=warp_per_row vec=4 block_x=256 rows_per_block=8
// One launch, one warp per row: float4 loads of the row and of x when cols is a multiple of 4 (scalar loads otherwise), a shuffle reduction, lane 0 writes y[i]; expected good (coalesced 16-byte loads of A, DRAM-bound).
#include <algorithm>
#include <cuda_runtime.h>

#define THREADS 256
#define ROWS_PER_BLOCK (THREADS / 32)

__global__ void matvec_warp_vec4(int rows, int cols, const float* __restrict__ a, const float* __restrict__ x,
                                 float* __restrict__ y)
{
    int lane = threadIdx.x & 31;
    int r = blockIdx.x * ROWS_PER_BLOCK + (threadIdx.x >> 5);
    if (r >= rows) return;
    const float* ar = a + (size_t)r * cols;
    float acc = 0.0f;
    if ((cols & 3) == 0) {                             // rows start 16-byte aligned
        const float4* a4 = reinterpret_cast<const float4*>(ar);
        const float4* x4 = reinterpret_cast<const float4*>(x);
        int n4 = cols >> 2;
        for (int j = lane; j < n4; j += 32) {
            float4 av = a4[j], xv = x4[j];
            acc += av.x * xv.x + av.y * xv.y + av.z * xv.z + av.w * xv.w;
        }
    } else {
        for (int j = lane; j < cols; j += 32) acc += ar[j] * x[j];
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) y[r] = acc;
}

extern "C" void matvec(int rows, int cols, const float* a, const float* x, float* y)
{
    matvec_warp_vec4<<<(rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, THREADS>>>(rows, cols, a, x, y);
}
