// Row argmax, one block per row, float4 loads (cols % 4 == 0 keeps rows
// 16-byte aligned), warp shuffles, per-warp winners in dynamic shared memory
// (32 floats then 32 ints: 256 bytes).
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ void keep_better(float& v, int& i, float ov, int oi)
{
    if (ov > v || (ov == v && oi < i)) { v = ov; i = oi; }
}

__device__ __forceinline__ void warp_argmax(float& v, int& i)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        const float ov = __shfl_down_sync(FULL_MASK, v, off);
        const int oi = __shfl_down_sync(FULL_MASK, i, off);
        keep_better(v, i, ov, oi);
    }
}

extern "C" __global__ void argmax_vec4(const float* __restrict__ x, int* __restrict__ idx, int rows, int cols)
{
    extern __shared__ unsigned char smem_raw[];
    float* wval = reinterpret_cast<float*>(smem_raw);
    int* widx = reinterpret_cast<int*>(smem_raw + 32 * sizeof(float));
    const int row = blockIdx.x;
    if (row >= rows) return;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const float* in = x + (size_t)row * cols;
    const float4* in4 = reinterpret_cast<const float4*>(in);
    const int n4 = cols >> 2;

    float best = -__int_as_float(0x7f800000);
    int bi = 0x7fffffff;
    for (int i = threadIdx.x; i < n4; i += blockDim.x) {
        const float4 v = in4[i];
        const int c = i << 2;
        keep_better(best, bi, v.x, c);
        keep_better(best, bi, v.y, c + 1);
        keep_better(best, bi, v.z, c + 2);
        keep_better(best, bi, v.w, c + 3);
    }
    for (int c = (n4 << 2) + threadIdx.x; c < cols; c += blockDim.x)
        keep_better(best, bi, in[c], c);

    warp_argmax(best, bi);
    if (lane == 0) { wval[warp] = best; widx[warp] = bi; }
    __syncthreads();
    if (warp == 0) {
        best = lane < nwarps ? wval[lane] : -__int_as_float(0x7f800000);
        bi = lane < nwarps ? widx[lane] : 0x7fffffff;
        warp_argmax(best, bi);
        if (lane == 0) idx[row] = bi;
    }
}
