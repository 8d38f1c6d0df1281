// Row argmax, one block of BLOCK threads per row, (value, index) pairs reduced
// in two static shared arrays; ties go to the smaller index.
#define BLOCK 256
#define NEG_INF (-__int_as_float(0x7f800000))

extern "C" __global__ void __launch_bounds__(BLOCK)
argmax_block(const float* x, int* idx, int rows, int cols)
{
    __shared__ float sval[BLOCK];
    __shared__ int sidx[BLOCK];
    const int tid = threadIdx.x;
    const int row = blockIdx.x;
    if (row >= rows) return;
    const float* in = x + (size_t)row * cols;

    float best = NEG_INF;
    int bi = 0x7fffffff;
    for (int c = tid; c < cols; c += BLOCK) {  // c increases: strict > keeps the first
        const float v = in[c];
        if (v > best) { best = v; bi = c; }
    }
    sval[tid] = best;
    sidx[tid] = bi;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) {
            const float ov = sval[tid + s];
            const int oi = sidx[tid + s];
            if (ov > sval[tid] || (ov == sval[tid] && oi < sidx[tid])) {
                sval[tid] = ov;
                sidx[tid] = oi;
            }
        }
        __syncthreads();
    }
    if (tid == 0) idx[row] = sidx[0];
}
