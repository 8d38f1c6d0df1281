// Row sums, one block per row, with the textbook "interleaved addressing"
// tree: `tid % (2*s)` makes most of each warp idle and diverge at every step.
// Dynamic shared memory of blockDim.x floats; blockDim.x must be a power of 2.
extern "C" __global__ void rowsum_interleaved(const float* x, float* y, int rows, int cols)
{
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int row = blockIdx.x;
    if (row >= (unsigned int)rows) return;

    float acc = 0.0f;
    for (unsigned int c = tid; c < (unsigned int)cols; c += blockDim.x)
        acc += x[row * cols + c];
    sdata[tid] = acc;
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        y[row] = sdata[0];
}
