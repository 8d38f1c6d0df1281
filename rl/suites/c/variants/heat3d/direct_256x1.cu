// params: kind=direct block_x=256 block_y=1
// launch: grid=(cdiv(nx, 256), ny, nz) block=(256)
extern "C" __global__ void heat3d_direct_256x1(int nx, int ny, int nz, float alpha, const float* u, float* v)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    int z = blockIdx.z;
    if (x >= nx) return;
    size_t sy = (size_t)nx, sz = (size_t)nx * ny;
    size_t p = z * sz + y * sy + x;
    if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
        v[p] = u[p];
        return;
    }
    float lap = u[p - 1] + u[p + 1] + u[p - sy] + u[p + sy] + u[p - sz] + u[p + sz] - 6.0f * u[p];
    v[p] = u[p] + alpha * lap;
}
