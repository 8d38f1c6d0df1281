// y = relu(x + bias[col]) with a 2-D launch whose x dimension walks ROWS: the
// 32 lanes of a warp touch 32 different rows, so nothing coalesces.
#include <cuda_bf16.h>

extern "C" __global__ void bias_relu_rowfast(const __nv_bfloat16* x, const __nv_bfloat16* bias,
                                             __nv_bfloat16* y, int rows, int cols)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    const int c = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        const size_t i = (size_t)r * cols + c;
        const float v = __bfloat162float(x[i]) + __bfloat162float(bias[c]);
        y[i] = __float2bfloat16(fmaxf(v, 0.0f));
    }
}
