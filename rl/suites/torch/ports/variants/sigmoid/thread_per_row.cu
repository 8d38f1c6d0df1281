// params: kind=thread_per_row block_x=128
// launch: grid=(cdiv(rows, 128)) block=(128)
// A poor port: one thread per row walking it alone; a warp's 32 loads are a row (~4 KB) apart,
// and only `rows` threads exist.
extern "C" __global__ void sigmoid_thread_per_row(const float* x, float* y, int rows, int cols)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    for (int c = 0; c < cols; ++c) yr[c] = 1.0f / (1.0f + expf(-xr[c]));
}
