// params: kind=split_atomic chunk=1024 block_x=256
// launch: grid=(cdiv(cols, 1024), rows) block=(256)
// Each row split into chunks of 1024 columns, one block per chunk (more blocks than rows): 4 coalesced
// loads per thread, a warp shuffle, then one atomicAdd per warp into the row's sum (y is zeroed first).
extern "C" __global__ void sum_rows_split_atomic(const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.y;
    const float* xr = x + (size_t)r * cols;
    int c0 = blockIdx.x * 1024 + threadIdx.x;
    float v = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        int c = c0 + k * 256;
        if (c < cols) v += xr[c];
    }
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(&y[r], v);
}
