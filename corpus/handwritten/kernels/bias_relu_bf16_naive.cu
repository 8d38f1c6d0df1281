// y = relu(x + bias[col]) on a bf16 matrix, one thread per element, fp32 math.
#include <cuda_bf16.h>

extern "C" __global__ void bias_relu_naive(const __nv_bfloat16* x, const __nv_bfloat16* bias,
                                           __nv_bfloat16* y, int rows, int cols)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) {
        float v = __bfloat162float(x[i]) + __bfloat162float(bias[i % cols]);
        y[i] = __float2bfloat16(v > 0.0f ? v : 0.0f);
    }
}
