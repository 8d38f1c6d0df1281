// params: kind=direct order=zyx block_x=32 block_y=8
// launch: grid=(cdiv(nz, 32), cdiv(ny, 8), nx) block=(32, 8)
// Plausible but slower: threadIdx.x runs along z, so a warp's accesses are nx * ny floats apart.
extern "C" __global__ void heat3d_direct_zyx(int nx, int ny, int nz, float alpha, const float* u, float* v)
{
    int z = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int x = blockIdx.z;
    if (x >= nx || y >= ny || z >= nz) return;
    size_t sy = (size_t)nx, sz = (size_t)nx * ny;
    size_t p = z * sz + y * sy + x;
    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
        v[p] = u[p];
        return;
    }
    float lap = u[p - 1] + u[p + 1] + u[p - sy] + u[p + sy] + u[p - sz] + u[p + sz] - 6.0f * u[p];
    v[p] = u[p] + alpha * lap;
}
