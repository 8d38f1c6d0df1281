// params: kind=gridstride block_x=256
// launch: grid=(min(cdiv(n, 256), 1056)) block=(256)
extern "C" __global__ void stencil1d3_gridstride(int n, const float* x, float* y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = (i == 0 || i == n - 1) ? x[i] : 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];
}
