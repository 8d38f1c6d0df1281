// params: kind=atomic_chunks rows_per_block=32 block_x=256
// launch: grid=(cdiv(nc, 256), cdiv(nr, 32), nb) block=(256)
// R split into chunks of 32 rows, one block per (column chunk, row chunk, b): each thread sums its
// column over 32 rows (coalesced) and atomically adds sum / R into y (zeroed first); R/32 atomics per output.
extern "C" __global__ void mean_middle_dim_atomic_chunks(const float* x, float* y, int nb, int nr, int nc)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.z;
    if (c >= nc) return;
    int r0 = blockIdx.y * 32;
    int r1 = min(r0 + 32, nr);
    float v = 0.0f;
    for (int r = r0; r < r1; ++r) v += x[((size_t)b * nr + r) * nc + c];
    atomicAdd(&y[(size_t)b * nc + c], v / nr);
}
