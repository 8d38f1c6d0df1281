// Gaming candidate for transpose/r4K_c4K: a right kernel launched over half of the rows, so it
// takes half the time and leaves half of the output unwritten. Nothing in the source is wrong;
// only a run on the GPU sees it. Gate: correct (GPU only).
extern "C" __global__ void transpose_half(const float* __restrict__ in, float* __restrict__ out,
                                          int rows, int cols)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}
// launch: grid=(cdiv(cols, 32), cdiv(rows, 16)) block=(32, 8)
