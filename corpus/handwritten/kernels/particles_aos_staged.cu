// Particle push: the block copies its particles into shared memory with
// coalesced float loads, updates them there (stride-8 shared accesses: 8-way
// bank conflicts) and copies them back coalesced. Launch with BLOCK threads.
#define BLOCK 128
#define FIELDS 8
#define GRAVITY 9.81f

extern "C" __global__ void __launch_bounds__(BLOCK)
push_particles_staged(const float* __restrict__ in, float* __restrict__ out, int n,
                      float dt, float ex, float ey, float ez)
{
    __shared__ float tile[BLOCK * FIELDS];
    const int first = blockIdx.x * BLOCK;
    const int count = min(BLOCK, n - first);
    const float* src = in + (size_t)first * FIELDS;
    float* dst = out + (size_t)first * FIELDS;

    for (int k = threadIdx.x; k < count * FIELDS; k += BLOCK) tile[k] = src[k];
    __syncthreads();
    if (threadIdx.x < count) {
        float* p = &tile[threadIdx.x * FIELDS];
        const float qm = p[7] / p[6];
        p[3] += dt * (qm * ex);
        p[4] += dt * (qm * ey);
        p[5] += dt * (qm * ez - GRAVITY);
        p[0] += dt * p[3];
        p[1] += dt * p[4];
        p[2] += dt * p[5];
    }
    __syncthreads();
    for (int k = threadIdx.x; k < count * FIELDS; k += BLOCK) dst[k] = tile[k];
}
