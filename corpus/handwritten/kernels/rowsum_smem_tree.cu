// Row sums, one block per row, block size as a template parameter and a
// shared-memory tree with sequential addressing.
template <int BLOCK>
__global__ void rowsum_smem(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    __shared__ float partial[BLOCK];
    const int row = blockIdx.x;
    if (row >= rows) return;  // uniform for the whole block
    const float* in = x + (size_t)row * cols;

    float acc = 0.0f;
    for (int c = threadIdx.x; c < cols; c += BLOCK)
        acc += in[c];
    partial[threadIdx.x] = acc;
    __syncthreads();

#pragma unroll
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        y[row] = partial[0];
}

template __global__ void rowsum_smem<128>(const float* __restrict__, float* __restrict__, int, int);
template __global__ void rowsum_smem<512>(const float* __restrict__, float* __restrict__, int, int);
