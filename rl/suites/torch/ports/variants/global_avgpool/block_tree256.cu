// params: kind=block_per_plane reduce=smem_tree block_x=256
// launch: grid=(planes) block=(256)
// One block per plane: strided partial sums, then the classic shared-memory tree (a __syncthreads per level).
extern "C" __global__ void global_avgpool_block_tree256(const float* x, float* y, int planes, int hw)
{
    __shared__ float s[256];
    int tid = threadIdx.x;
    const float* xp = x + (size_t)blockIdx.x * hw;
    float v = 0.0f;
    for (int i = tid; i < hw; i += blockDim.x) v += xp[i];
    s[tid] = v;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (tid < k) s[tid] += s[tid + k];
        __syncthreads();
    }
    if (tid == 0) y[blockIdx.x] = s[0] / hw;
}
