// params: kind=elementwise block_x=1024
// launch: grid=(cdiv(n, 1024)) block=(1024)
// The naive kernel with 1024-thread blocks.
extern "C" __global__ void gelu_block_1024(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    }
}
