// params: kind=warp_per_row vec=1 block_x=128
// launch: grid=(cdiv(m, 4)) block=(128)
// One warp per row: the 32 lanes read the row coalesced, then a __shfl_xor_sync butterfly reduction.
extern "C" __global__ void matvec_warp_per_row_128(const float* a, const float* x, float* y, int m, int k)
{
    int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= m) return;
    const float* ar = a + (size_t)row * k;
    float acc = 0.0f;
    for (int j = lane; j < k; j += 32) acc += ar[j] * x[j];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
    if (lane == 0) y[row] = acc;
}
