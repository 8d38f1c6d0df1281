// Row softmax, one block of BLOCK threads per row, two shared-memory tree
// reductions (max, then sum), block size as a template parameter.
template <int BLOCK>
__global__ void softmax_block(const float* __restrict__ x, float* __restrict__ y, int rows, int cols)
{
    __shared__ float red[BLOCK];
    const int tid = threadIdx.x;
    const int row = blockIdx.x;
    if (row >= rows) return;
    const float* in = x + (size_t)row * cols;
    float* out = y + (size_t)row * cols;

    float m = -__int_as_float(0x7f800000);
    for (int c = tid; c < cols; c += BLOCK) m = fmaxf(m, in[c]);
    red[tid] = m;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] = fmaxf(red[tid], red[tid + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();  // everyone has read red[0] before it is reused

    float sum = 0.0f;
    for (int c = tid; c < cols; c += BLOCK) sum += expf(in[c] - m);
    red[tid] = sum;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] += red[tid + s];
        __syncthreads();
    }
    const float inv = 1.0f / red[0];
    for (int c = tid; c < cols; c += BLOCK) out[c] = expf(in[c] - m) * inv;
}

template __global__ void softmax_block<128>(const float* __restrict__, float* __restrict__, int, int);
template __global__ void softmax_block<256>(const float* __restrict__, float* __restrict__, int, int);
