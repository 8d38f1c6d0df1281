// params: kind=smem_filter block_x=32 block_y=8
// launch: grid=(cdiv(w, 32), cdiv(h, 8)) block=(32, 8)
// The 25 filter taps in shared memory; the image still from global memory (and L1).
extern "C" __global__ void conv2d_smem_filter(int h, int w, const float* x, const float* k, float* y)
{
    __shared__ float f[25];
    int t = threadIdx.y * blockDim.x + threadIdx.x;
    if (t < 25) f[t] = k[t];
    __syncthreads();
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= h || j >= w) return;
    float acc = 0.0f;
    for (int a = 0; a < 5; ++a) {
        int r = i + a - 2;
        if (r < 0 || r >= h) continue;
        for (int b = 0; b < 5; ++b) {
            int c = j + b - 2;
            if (c < 0 || c >= w) continue;
            acc += f[a * 5 + b] * x[(size_t)r * w + c];
        }
    }
    y[(size_t)i * w + j] = acc;
}
