// params: kind=block_per_row block_x=256
// launch: grid=(rows) block=(256)
// One block per row, the threads striding along it (coalesced, a ragged last pass per row).
extern "C" __global__ void sigmoid_block_per_row(const float* x, float* y, int rows, int cols)
{
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = 1.0f / (1.0f + expf(-xr[c]));
}
