// Column sums, four adjacent columns per thread through float4 loads
// (cols % 4 == 0), rows split over gridDim.y, four atomicAdds into y (zeroed).
extern "C" __global__ void colsum_vec4(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    const int c4 = blockIdx.x * blockDim.x + threadIdx.x;
    const int ncols4 = cols >> 2;
    if (c4 >= ncols4) return;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int r = blockIdx.y; r < rows; r += gridDim.y) {
        const float4 v = x4[(size_t)r * ncols4 + c4];
        acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
    float* dst = y + 4 * c4;
    atomicAdd(dst, acc.x);
    atomicAdd(dst + 1, acc.y);
    atomicAdd(dst + 2, acc.z);
    atomicAdd(dst + 3, acc.w);
}
