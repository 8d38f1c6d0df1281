// params: kind=elementwise block_x=1024
// launch: grid=(cdiv(n, 1024)) block=(1024)
// The naive kernel with 1024-thread blocks.
extern "C" __global__ void tanh_block_1024(const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = tanhf(v);
    }
}
