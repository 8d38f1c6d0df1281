// params: kind=warp_shuffle scope=block gridstride=1 vec=4 block_x=256
// launch: grid=(min(cdiv(n, 1024), 1056)) block=(256)
// As gridstride_shuffle with 16-byte loads; block 0 also covers the n % 4 tail.
extern "C" __global__ void amax_vec4_shuffle(int n, const float* x, float* out)
{
    __shared__ float warps[32];
    float v = 0.0f;
    int n4 = n / 4;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        float4 q = x4[i];
        v = fmaxf(v, fmaxf(fmaxf(fabsf(q.x), fabsf(q.y)), fmaxf(fabsf(q.z), fabsf(q.w))));
    }
    if (blockIdx.x == 0 && threadIdx.x < n - n4 * 4) v = fmaxf(v, fabsf(x[n4 * 4 + threadIdx.x]));
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? warps[lane] : 0.0f;
        for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
        if (lane == 0) atomicMax((int*)out, __float_as_int(v));
    }
}
