// params: kind=block2d vec=1 block_x=32 block_y=8
// launch: grid=(cdiv(w / 2, 32), cdiv(h / 2, 8), planes) block=(32, 8)
// A 3-D grid: x and y over the output plane, z over the planes; no divisions per thread.
extern "C" __global__ void maxpool2d_block2d(const float* x, float* y, int planes, int h, int w)
{
    int oh = h / 2, ow = w / 2;
    int ox = blockIdx.x * 32 + threadIdx.x;
    int oy = blockIdx.y * 8 + threadIdx.y;
    int p = blockIdx.z;
    if (ox >= ow || oy >= oh || p >= planes) return;
    const float* xp = x + ((size_t)p * h + 2 * oy) * w + 2 * ox;
    y[((size_t)p * oh + oy) * ow + ox] = fmaxf(fmaxf(xp[0], xp[1]), fmaxf(xp[w], xp[w + 1]));
}
