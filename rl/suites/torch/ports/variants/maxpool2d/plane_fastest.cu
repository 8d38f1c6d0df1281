// params: kind=plane_fastest vec=1 block_x=256
// launch: grid=(cdiv(planes * (h / 2) * (w / 2), 256)) block=(256)
// A poor port: threads numbered plane-fastest, so consecutive threads read and write addresses a
// whole plane apart: every access is uncoalesced.
extern "C" __global__ void maxpool2d_plane_fastest(const float* x, float* y, int planes, int h, int w)
{
    int oh = h / 2, ow = w / 2;
    size_t n = (size_t)planes * oh * ow;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    size_t p = t % planes;
    size_t q = t / planes;                  // oy * ow + ox
    int ox = (int)(q % ow), oy = (int)(q / ow);
    const float* xp = x + (p * h + 2 * oy) * (size_t)w + 2 * ox;
    y[(p * oh + oy) * ow + ox] = fmaxf(fmaxf(xp[0], xp[1]), fmaxf(xp[w], xp[w + 1]));
}
