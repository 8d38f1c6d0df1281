// Particle push on a structure of arrays packed in one buffer, field-major:
// in = [x | y | z | vx | vy | vz | mass | charge] (n floats each),
// out = [x | y | z | vx | vy | vz]. One thread per particle.
#define GRAVITY 9.81f

extern "C" __global__ void push_particles_soa(const float* in, float* out, int n,
                                              float dt, float ex, float ey, float ez)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float qm = in[7 * n + i] / in[6 * n + i];
    float vx = in[3 * n + i] + dt * (qm * ex);
    float vy = in[4 * n + i] + dt * (qm * ey);
    float vz = in[5 * n + i] + dt * (qm * ez - GRAVITY);
    out[i] = in[i] + dt * vx;
    out[n + i] = in[n + i] + dt * vy;
    out[2 * n + i] = in[2 * n + i] + dt * vz;
    out[3 * n + i] = vx;
    out[4 * n + i] = vy;
    out[5 * n + i] = vz;
}
