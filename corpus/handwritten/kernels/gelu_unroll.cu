// GELU, each block handles BLOCK*ITEMS consecutive elements: all loads first,
// then all stores, both unrolled and coalesced (element base + k*BLOCK).
template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK) gelu_unroll(const float* __restrict__ x, float* __restrict__ y, int n)
{
    const int base = blockIdx.x * (BLOCK * ITEMS) + threadIdx.x;
    float v[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int i = base + k * BLOCK;
        v[k] = i < n ? x[i] : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int i = base + k * BLOCK;
        const float u = v[k];
        if (i < n)
            y[i] = 0.5f * u * (1.0f + tanhf(0.7978845608f * (u + 0.044715f * u * u * u)));
    }
}

template __global__ void gelu_unroll<256, 4>(const float* __restrict__, float* __restrict__, int);
template __global__ void gelu_unroll<128, 8>(const float* __restrict__, float* __restrict__, int);
