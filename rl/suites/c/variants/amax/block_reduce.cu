// params: kind=block_reduce block_x=256
// launch: grid=(cdiv(n, 256)) block=(256)
// A shared-memory tree per block and one atomicMax per block instead of one per element.
extern "C" __global__ void amax_block_reduce(int n, const float* x, float* out)
{
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? fabsf(x[i]) : 0.0f;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + w]);
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicMax((int*)out, __float_as_int(s[0]));
}
