// y = relu(x + bias[col]): each block owns TILE_C columns and ROWS rows, stages
// its slice of the bias in shared memory once and walks down the rows.
#include <cuda_bf16.h>

template <int TILE_C, int ROWS>
__global__ void __launch_bounds__(TILE_C)
bias_relu_tiled(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ bias,
                __nv_bfloat16* __restrict__ y, int rows, int cols)
{
    __shared__ float sbias[TILE_C];
    const int c = blockIdx.x * TILE_C + threadIdx.x;
    sbias[threadIdx.x] = (c < cols) ? __bfloat162float(bias[c]) : 0.0f;
    __syncthreads();
    if (c >= cols) return;

    const int r0 = blockIdx.y * ROWS;
#pragma unroll 4
    for (int k = 0; k < ROWS; ++k) {
        const int r = r0 + k;
        if (r >= rows) break;
        const size_t i = (size_t)r * cols + c;
        y[i] = __float2bfloat16(fmaxf(__bfloat162float(x[i]) + sbias[threadIdx.x], 0.0f));
    }
}

template __global__ void bias_relu_tiled<256, 8>(const __nv_bfloat16* __restrict__, const __nv_bfloat16* __restrict__, __nv_bfloat16* __restrict__, int, int);
template __global__ void bias_relu_tiled<128, 16>(const __nv_bfloat16* __restrict__, const __nv_bfloat16* __restrict__, __nv_bfloat16* __restrict__, int, int);
