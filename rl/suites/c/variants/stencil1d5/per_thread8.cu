// params: kind=per_thread8 block_x=128
// launch: grid=(cdiv(cdiv(n, 8), 128)) block=(128)
// Plausible but slower: 8 neighbouring outputs per thread reuse loads in registers, but a warp's
// accesses stride by 32 bytes.
extern "C" __global__ void stencil1d5_per_thread8(int n, float s, const float* x, float* y)
{
    int i0 = 8 * (blockIdx.x * blockDim.x + threadIdx.x);
    if (i0 >= n) return;
    float c = s / 12.0f;
    float w[12];
    for (int t = 0; t < 12; ++t) {
        int j = i0 - 2 + t;
        w[t] = j >= 0 && j < n ? x[j] : 0.0f;
    }
    for (int t = 0; t < 8; ++t) {
        int i = i0 + t;
        if (i >= n) break;
        y[i] = (i < 2 || i >= n - 2) ? 0.0f
             : c * (-w[t] + 16.0f * w[t + 1] - 30.0f * w[t + 2] + 16.0f * w[t + 3] - w[t + 4]);
    }
}
