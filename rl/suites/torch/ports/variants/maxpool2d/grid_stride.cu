// params: kind=grid_stride vec=1 block_x=256
// launch: grid=(1056) block=(256)
// A grid-stride loop over the outputs with a fixed grid of 8 blocks per SM (132 SMs).
extern "C" __global__ void maxpool2d_grid_stride(const float* x, float* y, int planes, int h, int w)
{
    int oh = h / 2, ow = w / 2;
    size_t n = (size_t)planes * oh * ow;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        int ox = (int)(i % ow);
        size_t t = i / ow;
        int oy = (int)(t % oh);
        size_t p = t / oh;
        const float* xp = x + (p * h + 2 * oy) * (size_t)w + 2 * ox;
        y[i] = fmaxf(fmaxf(xp[0], xp[1]), fmaxf(xp[w], xp[w + 1]));
    }
}
