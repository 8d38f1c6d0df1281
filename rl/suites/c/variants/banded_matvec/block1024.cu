// params: kind=naive_port block_x=1024
// launch: grid=(cdiv(n, 1024)) block=(1024)
extern "C" __global__ void banded_matvec_block1024(int n, int band, const float* diags, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int d = 0; d <= 2 * band; ++d) {
        int c = i + d - band;
        if (c >= 0 && c < n)
            acc += diags[(size_t)d * n + i] * x[c];
    }
    y[i] = acc;
}
