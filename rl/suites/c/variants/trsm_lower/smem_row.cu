// params: kind=smem_row block_x=64
// launch: grid=(cdiv(nrhs, 64)) block=(64)
// Row i of the triangle is staged in shared memory 128 values at a time, shared by the block's
// 64 right-hand sides (the naive port has every thread load it; L1 mostly catches that).
extern "C" __global__ void trsm_lower_smem_row(int n, int nrhs, const float* l, float* b)
{
    __shared__ float row[128];
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    bool live = j < nrhs;
    for (int i = 0; i < n; ++i) {
        float acc = live ? b[(size_t)i * nrhs + j] : 0.0f;
        for (int k0 = 0; k0 < i; k0 += 128) {
            int cnt = min(128, i - k0);
            __syncthreads();                         // the previous chunk is consumed
            for (int t = threadIdx.x; t < cnt; t += blockDim.x) row[t] = l[(size_t)i * n + k0 + t];
            __syncthreads();
            if (live)
                for (int t = 0; t < cnt; ++t) acc -= row[t] * b[(size_t)(k0 + t) * nrhs + j];
        }
        if (live) b[(size_t)i * nrhs + j] = acc / l[(size_t)i * n + i];
    }
}
