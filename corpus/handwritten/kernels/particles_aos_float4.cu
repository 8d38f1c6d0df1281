// Particle push on the array-of-structs layout read as two float4 per particle:
// lo = (x, y, z, vx), hi = (vy, vz, mass, charge).
#define GRAVITY 9.81f

extern "C" __global__ void push_particles_aos_vec(const float4* __restrict__ in, float4* __restrict__ out,
                                                  int n, float dt, float ex, float ey, float ez)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 lo = in[2 * i];
    float4 hi = in[2 * i + 1];
    const float qm = hi.w / hi.z;
    lo.w += dt * (qm * ex);             // vx
    hi.x += dt * (qm * ey);             // vy
    hi.y += dt * (qm * ez - GRAVITY);   // vz
    lo.x += dt * lo.w;
    lo.y += dt * hi.x;
    lo.z += dt * hi.y;
    out[2 * i] = lo;
    out[2 * i + 1] = hi;
}
