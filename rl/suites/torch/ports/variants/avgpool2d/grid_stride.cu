// params: kind=grid_stride block_x=256
// launch: grid=(1056) block=(256)
// A grid-stride loop over the outputs with a fixed grid of 8 blocks per SM (132 SMs).
extern "C" __global__ void avgpool2d_grid_stride(const float* x, float* y, int planes, int h, int w)
{
    size_t n = (size_t)planes * h * w;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        int ox = (int)(i % w);
        size_t t = i / w;
        int oy = (int)(t % h);
        size_t p = t / h;
        const float* xp = x + p * h * (size_t)w;
        float s = 0.0f;
        for (int dy = -1; dy <= 1; ++dy) {
            int yy = oy + dy;
            if (yy < 0 || yy >= h) continue;
            const float* row = xp + (size_t)yy * w;
            s += row[ox];
            if (ox > 0) s += row[ox - 1];
            if (ox + 1 < w) s += row[ox + 1];
        }
        y[i] = s / 9.0f;
    }
}
