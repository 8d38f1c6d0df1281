// One explicit-Euler step for charged particles stored as an array of structs:
// v += dt * (q/m * E + g), x += dt * v. One thread per particle, struct copies.
#define GRAVITY 9.81f

struct Particle {
    float x, y, z;
    float vx, vy, vz;
    float mass, charge;
};

extern "C" __global__ void push_particles_aos(const Particle* in, Particle* out, int n,
                                              float dt, float ex, float ey, float ez)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Particle p = in[i];
    float qm = p.charge / p.mass;
    p.vx += dt * (qm * ex);
    p.vy += dt * (qm * ey);
    p.vz += dt * (qm * ez - GRAVITY);
    p.x += dt * p.vx;
    p.y += dt * p.vy;
    p.z += dt * p.vz;
    out[i] = p;
}
