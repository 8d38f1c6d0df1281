// params: kind=gridstride block_x=256
// launch: grid=(min(cdiv(n, 256), 1056)) block=(256)
extern "C" __global__ void stencil1d5_gridstride(int n, float s, const float* x, float* y)
{
    float c = s / 12.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        if (i < 2 || i >= n - 2)
            y[i] = 0.0f;
        else
            y[i] = c * (-x[i - 2] + 16.0f * x[i - 1] - 30.0f * x[i] + 16.0f * x[i + 1] - x[i + 2]);
    }
}
