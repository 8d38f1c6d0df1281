// params: kind=warp_per_row vec=4 block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row with float4 loads and stores (scalar tail when cols % 4 != 0).
extern "C" __global__ void l2_normalize_rows_warp_vec4(const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    const float4* xv = reinterpret_cast<const float4*>(xr);
    float4* yv = reinterpret_cast<float4*>(yr);
    int nv = (cols & 3) ? 0 : (cols >> 2);
    float ss = 0.0f;
    for (int c = lane; c < nv; c += 32) {
        float4 v = xv[c];
        ss += (v.x * v.x + v.y * v.y) + (v.z * v.z + v.w * v.w);
    }
    for (int c = 4 * nv + lane; c < cols; c += 32) { float v = xr[c]; ss += v * v; }
    for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
    float inv = 1.0f / fmaxf(sqrtf(ss), 1e-12f);
    for (int c = lane; c < nv; c += 32) {
        float4 v = xv[c];
        v.x *= inv; v.y *= inv; v.z *= inv; v.w *= inv;
        yv[c] = v;
    }
    for (int c = 4 * nv + lane; c < cols; c += 32) yr[c] = xr[c] * inv;
}
