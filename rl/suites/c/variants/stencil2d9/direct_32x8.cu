// params: kind=direct block_x=32 block_y=8
// launch: grid=(cdiv(w, 32), cdiv(h, 8)) block=(32, 8)
extern "C" __global__ void stencil2d9_direct_32x8(int h, int w, const float* x, float* y)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= h || j >= w) return;
    size_t p = (size_t)i * w + j;
    if (i == 0 || j == 0 || i == h - 1 || j == w - 1) {
        y[p] = x[p];
        return;
    }
    y[p] = 0.0625f * (x[p - w - 1] + 2.0f * x[p - w] + x[p - w + 1])
         + 0.125f * (x[p - 1] + 2.0f * x[p] + x[p + 1])
         + 0.0625f * (x[p + w - 1] + 2.0f * x[p + w] + x[p + w + 1]);
}
