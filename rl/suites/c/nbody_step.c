/* One step of an all-pairs gravitational n-body system with Plummer softening eps2:
   pos and vel hold (x, y, z) per body, mass one value per body. Accelerations first,
   then the velocity and the position (semi-implicit Euler). */
#include <math.h>
#include <stddef.h>

void nbody_step(int n, float dt, float eps2, const float* pos, const float* vel, const float* mass,
                float* pos_out, float* vel_out)
{
    for (int i = 0; i < n; ++i) {
        float xi = pos[3 * (size_t)i], yi = pos[3 * (size_t)i + 1], zi = pos[3 * (size_t)i + 2];
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < n; ++j) {
            float dx = pos[3 * (size_t)j] - xi;
            float dy = pos[3 * (size_t)j + 1] - yi;
            float dz = pos[3 * (size_t)j + 2] - zi;
            float r2 = dx * dx + dy * dy + dz * dz + eps2;
            float inv = 1.0f / sqrtf(r2);
            float s = mass[j] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        float vx = vel[3 * (size_t)i] + dt * ax;
        float vy = vel[3 * (size_t)i + 1] + dt * ay;
        float vz = vel[3 * (size_t)i + 2] + dt * az;
        vel_out[3 * (size_t)i] = vx;
        vel_out[3 * (size_t)i + 1] = vy;
        vel_out[3 * (size_t)i + 2] = vz;
        pos_out[3 * (size_t)i] = xi + dt * vx;
        pos_out[3 * (size_t)i + 1] = yi + dt * vy;
        pos_out[3 * (size_t)i + 2] = zi + dt * vz;
    }
}
