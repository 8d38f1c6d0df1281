// params: kind=naive_port block_x=1024
// launch: grid=(cdiv(n, 1024)) block=(1024)
extern "C" __global__ void stencil1d3_block1024(int n, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = (i == 0 || i == n - 1) ? x[i] : 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];
}
