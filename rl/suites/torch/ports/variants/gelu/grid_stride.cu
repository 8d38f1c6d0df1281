// params: kind=grid_stride block_x=256
// launch: grid=(1056) block=(256)
// A grid-stride loop over a fixed grid of 8 blocks per SM (132 SMs).
extern "C" __global__ void gelu_grid_stride(const float* x, float* y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    }
}
