// SwiGLU on a fused bf16 projection: x is rows x 2d with the gate in the first
// d columns and the up projection in the last d; out = silu(gate) * up.
// One thread per output, fp32 math.
#include <cuda_bf16.h>

extern "C" __global__ void swiglu_naive(const __nv_bfloat16* x, __nv_bfloat16* out, int rows, int d)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows * d) return;
    int r = i / d;
    int c = i % d;
    float g = __bfloat162float(x[(size_t)r * 2 * d + c]);
    float u = __bfloat162float(x[(size_t)r * 2 * d + d + c]);
    out[i] = __float2bfloat16(g / (1.0f + expf(-g)) * u);
}
