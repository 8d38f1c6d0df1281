// params: kind=smem_tile tile=128 rsqrt=1 block_x=128
// launch: grid=(cdiv(n, 128)) block=(128)
// As smem_tile128 with rsqrtf (one approximate instruction instead of sqrt and a divide): a few
// ulp off the C reference per pair, inside the task's tolerance.
extern "C" __global__ void nbody_step_rsqrt_fast(int n, float dt, float eps2, const float* pos, const float* vel,
                                                 const float* mass, float* pos_out, float* vel_out)
{
    __shared__ float sp[128 * 3];
    __shared__ float sm[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float xi = 0.0f, yi = 0.0f, zi = 0.0f;
    if (i < n) {
        xi = pos[3 * i];
        yi = pos[3 * i + 1];
        zi = pos[3 * i + 2];
    }
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j0 = 0; j0 < n; j0 += 128) {
        int cnt = min(128, n - j0);
        for (int t = threadIdx.x; t < 3 * cnt; t += blockDim.x) sp[t] = pos[3 * j0 + t];
        for (int t = threadIdx.x; t < cnt; t += blockDim.x) sm[t] = mass[j0 + t];
        __syncthreads();
        for (int t = 0; t < cnt; ++t) {
            float dx = sp[3 * t] - xi;
            float dy = sp[3 * t + 1] - yi;
            float dz = sp[3 * t + 2] - zi;
            float inv = rsqrtf(dx * dx + dy * dy + dz * dz + eps2);
            float s = sm[t] * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        __syncthreads();
    }
    if (i >= n) return;
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
