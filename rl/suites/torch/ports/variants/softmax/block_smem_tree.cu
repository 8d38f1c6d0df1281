// params: kind=block_smem_tree online=0 vec=1 block_x=256
// launch: grid=(rows) block=(256)
// One block per row, textbook shared-memory tree reductions (halving strides, a __syncthreads
// per level) for the max and the sum; correct but more barriers than the shuffle version.
extern "C" __global__ void softmax_block_smem_tree(const float* x, float* y, int rows, int cols)
{
    __shared__ float s[256];
    int r = blockIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    int t = threadIdx.x;
    float mx = -__int_as_float(0x7f800000);
    for (int c = t; c < cols; c += 256) mx = fmaxf(mx, xr[c]);
    s[t] = mx;
    __syncthreads();
    for (int h = 128; h > 0; h >>= 1) {
        if (t < h) s[t] = fmaxf(s[t], s[t + h]);
        __syncthreads();
    }
    mx = s[0];
    __syncthreads();
    float sum = 0.0f;
    for (int c = t; c < cols; c += 256) sum += expf(xr[c] - mx);
    s[t] = sum;
    __syncthreads();
    for (int h = 128; h > 0; h >>= 1) {
        if (t < h) s[t] += s[t + h];
        __syncthreads();
    }
    float inv = 1.0f / s[0];
    for (int c = t; c < cols; c += 256) yr[c] = expf(xr[c] - mx) * inv;
}
