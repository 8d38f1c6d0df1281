// params: kind=naive_port block_x=32
// launch: grid=(cdiv(n, 32)) block=(32)
// The naive port in 32-thread blocks: more blocks for few bodies.
extern "C" __global__ void nbody_step_block32(int n, float dt, float eps2, const float* pos, const float* vel,
                                              const float* mass, float* pos_out, float* vel_out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float xi = pos[3 * i], yi = pos[3 * i + 1], zi = pos[3 * i + 2];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j = 0; j < n; ++j) {
        float dx = pos[3 * j] - xi;
        float dy = pos[3 * j + 1] - yi;
        float dz = pos[3 * j + 2] - zi;
        float r2 = dx * dx + dy * dy + dz * dz + eps2;
        float inv = 1.0f / sqrtf(r2);
        float s = mass[j] * inv * inv * inv;
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    float vx = vel[3 * i] + dt * ax;
    float vy = vel[3 * i + 1] + dt * ay;
    float vz = vel[3 * i + 2] + dt * az;
    vel_out[3 * i] = vx;
    vel_out[3 * i + 1] = vy;
    vel_out[3 * i + 2] = vz;
    pos_out[3 * i] = xi + dt * vx;
    pos_out[3 * i + 1] = yi + dt * vy;
    pos_out[3 * i + 2] = zi + dt * vz;
}
