// params: kind=warp_per_row vec=4 block_x=256
// launch: grid=(cdiv(m, 8)) block=(256)
// One warp per row with float4 loads of A and x (rows stay 16-byte aligned when k % 4 == 0; scalar otherwise).
extern "C" __global__ void matvec_warp_per_row_vec4(const float* a, const float* x, float* y, int m, int k)
{
    int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= m) return;
    const float* ar = a + (size_t)row * k;
    float acc = 0.0f;
    if ((k & 3) == 0) {
        const float4* a4 = reinterpret_cast<const float4*>(ar);
        const float4* x4 = reinterpret_cast<const float4*>(x);
        for (int j = lane; j < (k >> 2); j += 32) {
            float4 av = a4[j], xv = x4[j];
            acc += av.x * xv.x + av.y * xv.y + av.z * xv.z + av.w * xv.w;
        }
    } else {
        for (int j = lane; j < k; j += 32) acc += ar[j] * x[j];
    }
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) y[row] = acc;
}
