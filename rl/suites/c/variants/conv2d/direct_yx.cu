// params: kind=direct order=yx block_x=16 block_y=16
// launch: grid=(cdiv(h, 16), cdiv(w, 16)) block=(16, 16)
// Plausible but slower: threadIdx.x walks down rows, so neighbouring threads read rows w floats apart.
extern "C" __global__ void conv2d_direct_yx(int h, int w, const float* x, const float* k, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
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
