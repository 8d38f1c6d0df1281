// params: kind=naive_port block_x=1024
// launch: grid=(cdiv(n, 1024)) block=(1024)
extern "C" __global__ void stencil1d5_block1024(int n, float s, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (i < 2 || i >= n - 2) {
        y[i] = 0.0f;
        return;
    }
    float c = s / 12.0f;
    y[i] = c * (-x[i - 2] + 16.0f * x[i - 1] - 30.0f * x[i] + 16.0f * x[i + 1] - x[i + 2]);
}
