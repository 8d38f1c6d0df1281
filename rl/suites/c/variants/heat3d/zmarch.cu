// params: kind=zmarch block_x=32 block_y=8
// launch: grid=(cdiv(nx, 32), cdiv(ny, 8)) block=(32, 8)
// Each thread marches up z, keeping the points below, at and above it in registers.
extern "C" __global__ void heat3d_zmarch(int nx, int ny, int nz, float alpha, const float* u, float* v)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    size_t sy = (size_t)nx, sz = (size_t)nx * ny;
    bool edge = x == 0 || y == 0 || x == nx - 1 || y == ny - 1;
    size_t p = y * sy + x;
    float below = 0.0f, here = u[p];
    for (int z = 0; z < nz; ++z, p += sz) {
        float above = z + 1 < nz ? u[p + sz] : 0.0f;
        if (edge || z == 0 || z == nz - 1) {
            v[p] = here;
        } else {
            float lap = u[p - 1] + u[p + 1] + u[p - sy] + u[p + sy] + below + above - 6.0f * here;
            v[p] = here + alpha * lap;
        }
        below = here;
        here = above;
    }
}
