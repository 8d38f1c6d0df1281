// params: kind=warp_per_row vec=4 block_x=256
// launch: grid=(cdiv(rows, 8)) block=(256)
// One warp per row with 16-byte loads (rows stay 16-byte aligned when cols % 4 == 0; scalar otherwise).
extern "C" __global__ void matvec_warp_per_row_vec4(int rows, int cols, const float* a, const float* x, float* y)
{
    int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* ar = a + (size_t)row * cols;
    float acc = 0.0f;
    if ((cols & 3) == 0) {
        const float4* a4 = reinterpret_cast<const float4*>(ar);
        const float4* x4 = reinterpret_cast<const float4*>(x);
        for (int j = lane; j < cols / 4; j += 32) {
            float4 p = a4[j], q = x4[j];
            acc += p.x * q.x + p.y * q.y + p.z * q.z + p.w * q.w;
        }
    } else {
        for (int j = lane; j < cols; j += 32) acc += ar[j] * x[j];
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) y[row] = acc;
}
