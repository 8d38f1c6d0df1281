// params: kind=warp_shuffle scope=warp block_x=256
// launch: grid=(cdiv(n, 256)) block=(256)
extern "C" __global__ void dot_warp_atomic(int n, const double* x, const double* y, double* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double v = i < n ? x[i] * y[i] : 0.0;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}
