// params: kind=warp_shuffle scope=block gridstride=1 vec=2 block_x=512
// launch: grid=(min(cdiv(n, 1024), 528)) block=(512)
// 16-byte double2 loads; block 0 covers an odd last element.
extern "C" __global__ void dot_vec2_shuffle(int n, const double* x, const double* y, double* out)
{
    __shared__ double warps[32];
    double v = 0.0;
    int n2 = n / 2;
    const double2* x2 = reinterpret_cast<const double2*>(x);
    const double2* y2 = reinterpret_cast<const double2*>(y);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += gridDim.x * blockDim.x) {
        double2 a = x2[i], b = y2[i];
        v += a.x * b.x + a.y * b.y;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0 && (n & 1)) v += x[n - 1] * y[n - 1];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warps[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < (int)(blockDim.x >> 5) ? warps[lane] : 0.0;
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        if (lane == 0) atomicAdd(out, v);
    }
}
