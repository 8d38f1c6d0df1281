// Particle push on the packed structure of arrays: each block handles
// BLOCK*ITEMS particles, every field of all ITEMS particles is loaded into
// registers before any math (instruction-level parallelism), then stored.
#define GRAVITY 9.81f

template <int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
push_particles_soa_ilp(const float* __restrict__ in, float* __restrict__ out, int n,
                       float dt, float ex, float ey, float ez)
{
    const int base = blockIdx.x * BLOCK * ITEMS + threadIdx.x;
    float f[8][ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int i = base + k * BLOCK;
#pragma unroll
        for (int fld = 0; fld < 8; ++fld)
            f[fld][k] = i < n ? in[(size_t)fld * n + i] : 1.0f;
    }
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int i = base + k * BLOCK;
        if (i < n) {
            const float qm = f[7][k] / f[6][k];
            const float vx = f[3][k] + dt * (qm * ex);
            const float vy = f[4][k] + dt * (qm * ey);
            const float vz = f[5][k] + dt * (qm * ez - GRAVITY);
            out[i] = f[0][k] + dt * vx;
            out[(size_t)n + i] = f[1][k] + dt * vy;
            out[(size_t)2 * n + i] = f[2][k] + dt * vz;
            out[(size_t)3 * n + i] = vx;
            out[(size_t)4 * n + i] = vy;
            out[(size_t)5 * n + i] = vz;
        }
    }
}

template __global__ void push_particles_soa_ilp<256, 2>(const float* __restrict__, float* __restrict__, int, float, float, float, float);
template __global__ void push_particles_soa_ilp<128, 4>(const float* __restrict__, float* __restrict__, int, float, float, float, float);
