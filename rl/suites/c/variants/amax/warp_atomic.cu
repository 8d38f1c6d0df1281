// params: kind=warp_shuffle scope=warp block_x=256
// launch: grid=(cdiv(n, 256)) block=(256)
// Warp shuffles, one atomicMax per warp.
extern "C" __global__ void amax_warp_atomic(int n, const float* x, float* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? fabsf(x[i]) : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if ((threadIdx.x & 31) == 0) atomicMax((int*)out, __float_as_int(v));
}
