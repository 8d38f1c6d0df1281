// Naive port: one thread per output pixel, the filter and the image from global memory.
extern "C" __global__ void conv2d_naive(int h, int w, const float* x, const float* k, float* y)
{
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
            acc += k[a * 5 + b] * x[(size_t)r * w + c];
        }
    }
    y[(size_t)i * w + j] = acc;
}
