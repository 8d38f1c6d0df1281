// Dot product with the "strided index" tree (index = 2*s*tid): no divergence
// inside a warp, but shared-memory accesses are 2s words apart, so bank
// conflicts grow with s. Dynamic shared memory of blockDim.x floats.
extern "C" __global__ void dot_strided_index(const float* x, const float* y, float* out, int n)
{
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = (i < (unsigned int)n) ? x[i] * y[i] : 0.0f;
    __syncthreads();

    for (unsigned int s = 1; s < blockDim.x; s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0)
        atomicAdd(out, sdata[0]);
}
