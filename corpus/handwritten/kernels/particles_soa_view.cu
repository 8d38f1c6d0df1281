// Particle push on the packed structure of arrays through a small "view"
// struct of field pointers built by a device helper; grid-stride loop, __ldg.
#define GRAVITY 9.81f

struct SoAIn  { const float *x, *y, *z, *vx, *vy, *vz, *mass, *charge; };
struct SoAOut { float *x, *y, *z, *vx, *vy, *vz; };

__device__ __forceinline__ SoAIn view_in(const float* base, int n)
{
    SoAIn v;
    v.x = base;          v.y = base + n;      v.z = base + 2 * n;
    v.vx = base + 3 * n; v.vy = base + 4 * n; v.vz = base + 5 * n;
    v.mass = base + 6 * n; v.charge = base + 7 * n;
    return v;
}

__device__ __forceinline__ SoAOut view_out(float* base, int n)
{
    SoAOut v;
    v.x = base;          v.y = base + n;      v.z = base + 2 * n;
    v.vx = base + 3 * n; v.vy = base + 4 * n; v.vz = base + 5 * n;
    return v;
}

extern "C" __global__ void push_particles_soa_view(const float* __restrict__ in, float* __restrict__ out, int n,
                                                   float dt, float ex, float ey, float ez)
{
    const SoAIn p = view_in(in, n);
    const SoAOut o = view_out(out, n);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float qm = __ldg(p.charge + i) / __ldg(p.mass + i);
        const float vx = __ldg(p.vx + i) + dt * (qm * ex);
        const float vy = __ldg(p.vy + i) + dt * (qm * ey);
        const float vz = __ldg(p.vz + i) + dt * (qm * ez - GRAVITY);
        o.x[i] = __ldg(p.x + i) + dt * vx;
        o.y[i] = __ldg(p.y + i) + dt * vy;
        o.z[i] = __ldg(p.z + i) + dt * vz;
        o.vx[i] = vx;
        o.vy[i] = vy;
        o.vz[i] = vz;
    }
}
