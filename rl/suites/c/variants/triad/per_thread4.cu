// params: kind=per_thread4 layout=contiguous block_x=256
// launch: grid=(cdiv(cdiv(n, 4), 256)) block=(256)
// Plausible but slower: each thread takes 4 neighbouring elements, so a warp's loads stride by 16 bytes.
extern "C" __global__ void triad_per_thread4(int n, float s, const float* b, const float* c, float* a)
{
    int base = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    for (int t = 0; t < 4; ++t) {
        int i = base + t;
        if (i < n) a[i] = b[i] + s * c[i];
    }
}
