// 256-bin byte histogram with warp-aggregated global atomics: __match_any_sync
// groups the lanes holding the same byte and only the lowest lane of each group
// adds the group's size. Needs whole warps (blockDim.x % 32 == 0).
extern "C" __global__ void hist_match_any(const unsigned char* data, unsigned int* hist, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int active = __ballot_sync(0xffffffffu, i < n);
    if (i >= n) return;
    const unsigned int v = data[i];
    const unsigned int peers = __match_any_sync(active, v);
    const int leader = __ffs(peers) - 1;
    if ((int)(threadIdx.x & 31) == leader)
        atomicAdd(&hist[v], (unsigned int)__popc(peers));
}
