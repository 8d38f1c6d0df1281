// params: kind=unroll4 block_x=256
// launch: grid=(cdiv(n, 1024)) block=(256)
// Four elements per thread, blockDim apart (each of the four accesses stays coalesced): more loads in flight per thread.
extern "C" __global__ void tanh_unroll4(const float* x, float* y, int n)
{
    int base = blockIdx.x * blockDim.x * 4 + threadIdx.x;
    float v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        int i = base + k * blockDim.x;
        v[k] = i < n ? x[i] : 0.0f;
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        int i = base + k * blockDim.x;
        if (i < n) y[i] = tanhf(v[k]);
    }
}
