// params: kind=naive_port block_x=1024
// launch: grid=(cdiv(n, 1024)) block=(1024)
extern "C" __global__ void triad_block1024(int n, float s, const float* b, const float* c, float* a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = b[i] + s * c[i];
}
