// params: kind=naive_port block_x=64
// launch: grid=(cdiv(n, 64)) block=(64)
extern "C" __global__ void triad_block64(int n, float s, const float* b, const float* c, float* a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] + s * c[i];
}
