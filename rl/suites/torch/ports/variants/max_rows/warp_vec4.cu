// params: kind=warp_per_row vec=4 block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row with float4 loads when cols % 4 == 0 (row starts 16-byte aligned), scalar otherwise.
extern "C" __global__ void max_rows_warp_vec4(const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float v = __int_as_float(0xff800000);
    if ((cols & 3) == 0) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        for (int c = lane; c < cols / 4; c += 32) {
            float4 q = x4[c];
            v = fmaxf(v, q.x); v = fmaxf(v, q.y); v = fmaxf(v, q.z); v = fmaxf(v, q.w);
        }
    } else {
        for (int c = lane; c < cols; c += 32) v = fmaxf(v, xr[c]);
    }
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (lane == 0) y[r] = v;
}
