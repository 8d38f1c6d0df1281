// params: kind=warp_per_row vec=4 block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row, 128 columns per step: each lane scans its float4 serially, the lanes' totals
// are scanned with shuffles (scalar path when cols % 4 != 0).
extern "C" __global__ void cumsum_warp_vec4(const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float carry = 0.0f;
    if ((cols & 3) == 0) {
        for (int c0 = 0; c0 < cols; c0 += 128) {
            int c = c0 + 4 * lane;
            float4 v = c < cols ? *reinterpret_cast<const float4*>(xr + c) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            v.y += v.x; v.z += v.y; v.w += v.z;
            float incl = v.w;
            for (int o = 1; o < 32; o <<= 1) {
                float t = __shfl_up_sync(0xffffffffu, incl, o);
                if (lane >= o) incl += t;
            }
            float off = carry + incl - v.w;
            if (c < cols) {
                v.x += off; v.y += off; v.z += off; v.w += off;
                *reinterpret_cast<float4*>(yr + c) = v;
            }
            carry += __shfl_sync(0xffffffffu, incl, 31);
        }
    } else {
        for (int c0 = 0; c0 < cols; c0 += 32) {
            int c = c0 + lane;
            float v = c < cols ? xr[c] : 0.0f;
            for (int o = 1; o < 32; o <<= 1) {
                float t = __shfl_up_sync(0xffffffffu, v, o);
                if (lane >= o) v += t;
            }
            if (c < cols) yr[c] = carry + v;
            carry += __shfl_sync(0xffffffffu, v, 31);
        }
    }
}
