// params: kind=direct order=yx block_x=16 block_y=16
// launch: grid=(cdiv(h, 16), cdiv(w, 16)) block=(16, 16)
// Plausible but slower: threadIdx.x runs down a column, so a warp touches 16 different rows.
extern "C" __global__ void stencil2d9_direct_yx(int h, int w, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
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
