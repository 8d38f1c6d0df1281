/* One explicit step of the 3-D heat equation (7-point Laplacian) on an nx x ny x nz grid,
   x fastest: v = u + alpha (sum of the six neighbours - 6 u) inside, boundary copied. */
#include <stddef.h>

void heat3d(int nx, int ny, int nz, float alpha, const float* u, float* v)
{
    size_t sy = (size_t)nx, sz = (size_t)nx * ny;
    for (int z = 0; z < nz; ++z) {
        for (int y = 0; y < ny; ++y) {
            for (int x = 0; x < nx; ++x) {
                size_t p = z * sz + y * sy + x;
                if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
                    v[p] = u[p];
                    continue;
                }
                float lap = u[p - 1] + u[p + 1] + u[p - sy] + u[p + sy] + u[p - sz] + u[p + sz] - 6.0f * u[p];
                v[p] = u[p] + alpha * lap;
            }
        }
    }
}
