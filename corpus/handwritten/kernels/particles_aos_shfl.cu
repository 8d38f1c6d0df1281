// Particle push with one thread per FLOAT: lane l of a warp holds field (l % 8)
// of particle (l / 8), so loads and stores are fully coalesced; the velocity,
// mass and charge each lane needs come from its neighbours through shuffles.
// Every lane takes part in the shuffles, even past the end of the data.
#define FULL_MASK 0xffffffffu
#define GRAVITY 9.81f

extern "C" __global__ void push_particles_shfl(const float* __restrict__ in, float* __restrict__ out, int n,
                                               float dt, float ex, float ey, float ez)
{
    const int g = blockIdx.x * blockDim.x + threadIdx.x;  // flat float index
    const int total = n * 8;
    const int lane = threadIdx.x & 31;
    const int field = lane & 7;
    const int base = lane & ~7;

    const float v = g < total ? in[g] : 0.0f;
    const float vx = __shfl_sync(FULL_MASK, v, base + 3);
    const float vy = __shfl_sync(FULL_MASK, v, base + 4);
    const float vz = __shfl_sync(FULL_MASK, v, base + 5);
    const float m  = __shfl_sync(FULL_MASK, v, base + 6);
    const float q  = __shfl_sync(FULL_MASK, v, base + 7);
    if (g >= total) return;

    const float qm = q / m;
    const float nvx = vx + dt * (qm * ex);
    const float nvy = vy + dt * (qm * ey);
    const float nvz = vz + dt * (qm * ez - GRAVITY);
    float r;
    switch (field) {
        case 0: r = v + dt * nvx; break;
        case 1: r = v + dt * nvy; break;
        case 2: r = v + dt * nvz; break;
        case 3: r = nvx; break;
        case 4: r = nvy; break;
        case 5: r = nvz; break;
        default: r = v; break;
    }
    out[g] = r;
}
