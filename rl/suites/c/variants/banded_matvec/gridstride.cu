// params: kind=gridstride block_x=256
// launch: grid=(min(cdiv(n, 256), 1056)) block=(256)
extern "C" __global__ void banded_matvec_gridstride(int n, int band, const float* diags, const float* x, float* y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float acc = 0.0f;
        for (int d = 0; d <= 2 * band; ++d) {
            int c = i + d - band;
            if (c >= 0 && c < n)
                acc += diags[(size_t)d * n + i] * x[c];
        }
        y[i] = acc;
    }
}
