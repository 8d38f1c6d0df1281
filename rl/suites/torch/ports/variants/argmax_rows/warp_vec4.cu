// params: kind=warp_per_row vec=4 block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row with float4 loads when cols % 4 == 0 (scalar otherwise); each lane's indices grow
// along its scan, so strict > keeps its first maximum; ties across lanes go to the smaller index.
extern "C" __global__ void argmax_rows_warp_vec4(const float* x, long long* y, int rows, int cols)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float v = __int_as_float(0xff800000);
    int i = 0x7fffffff;
    if ((cols & 3) == 0) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        for (int c = lane; c < cols / 4; c += 32) {
            float4 q = x4[c];
            if (q.x > v) { v = q.x; i = 4 * c; }
            if (q.y > v) { v = q.y; i = 4 * c + 1; }
            if (q.z > v) { v = q.z; i = 4 * c + 2; }
            if (q.w > v) { v = q.w; i = 4 * c + 3; }
        }
    } else {
        for (int c = lane; c < cols; c += 32) {
            float q = xr[c];
            if (q > v) { v = q; i = c; }
        }
    }
    for (int o = 16; o > 0; o >>= 1) {
        float ov = __shfl_xor_sync(0xffffffffu, v, o);
        int oi = __shfl_xor_sync(0xffffffffu, i, o);
        if (ov > v || (ov == v && oi < i)) { v = ov; i = oi; }
    }
    if (lane == 0) y[r] = (long long)i;
}
