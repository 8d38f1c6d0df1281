// params: kind=gridstride block_x=256
// launch: grid=(min(cdiv(n, 256), 1056)) block=(256)
// A fixed grid (8 blocks per SM) walking the array.
extern "C" __global__ void triad_gridstride(int n, float s, const float* b, const float* c, float* a)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        a[i] = b[i] + s * c[i];
}
