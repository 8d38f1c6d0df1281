// params: kind=direct block_x=32 block_y=8
// launch: grid=(cdiv(w, 32), cdiv(h, 8)) block=(32, 8)
extern "C" __global__ void conv2d_direct_32x8(int h, int w, const float* x, const float* k, float* y)
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
