// params: kind=per_thread4 block_x=256
// launch: grid=(cdiv(cdiv(n, 4), 256)) block=(256)
// Plausible but slower: 4 neighbouring rows per thread, so a warp's diagonal loads stride by 16 bytes.
extern "C" __global__ void banded_matvec_rows4(int n, int band, const float* diags, const float* x, float* y)
{
    int i0 = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    for (int i = i0; i < i0 + 4 && i < n; ++i) {
        float acc = 0.0f;
        for (int d = 0; d <= 2 * band; ++d) {
            int c = i + d - band;
            if (c >= 0 && c < n)
                acc += diags[(size_t)d * n + i] * x[c];
        }
        y[i] = acc;
    }
}
