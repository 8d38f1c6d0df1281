// Particle push on the packed structure of arrays, four particles per thread
// with float4 loads from every field (n % 4 == 0 keeps each field 16-byte
// aligned); the first (n % 4) threads also finish the tail.
#define GRAVITY 9.81f

__device__ __forceinline__ void push1(float& x, float& v, float qm_e, float dt)
{
    v += dt * qm_e;
    x += dt * v;
}

extern "C" __global__ void push_particles_soa_vec4(const float* __restrict__ in, float* __restrict__ out, int n,
                                                   float dt, float ex, float ey, float ez)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int n4 = n >> 2;
    if (i < n4) {
        const float4* f = reinterpret_cast<const float4*>(in);
        float4* o = reinterpret_cast<float4*>(out);
        float4 x = f[i], y = f[n4 + i], z = f[2 * n4 + i];
        float4 vx = f[3 * n4 + i], vy = f[4 * n4 + i], vz = f[5 * n4 + i];
        const float4 m = f[6 * n4 + i], q = f[7 * n4 + i];
        const float4 qm = make_float4(q.x / m.x, q.y / m.y, q.z / m.z, q.w / m.w);
        push1(x.x, vx.x, qm.x * ex, dt); push1(x.y, vx.y, qm.y * ex, dt);
        push1(x.z, vx.z, qm.z * ex, dt); push1(x.w, vx.w, qm.w * ex, dt);
        push1(y.x, vy.x, qm.x * ey, dt); push1(y.y, vy.y, qm.y * ey, dt);
        push1(y.z, vy.z, qm.z * ey, dt); push1(y.w, vy.w, qm.w * ey, dt);
        push1(z.x, vz.x, qm.x * ez - GRAVITY, dt); push1(z.y, vz.y, qm.y * ez - GRAVITY, dt);
        push1(z.z, vz.z, qm.z * ez - GRAVITY, dt); push1(z.w, vz.w, qm.w * ez - GRAVITY, dt);
        o[i] = x; o[n4 + i] = y; o[2 * n4 + i] = z;
        o[3 * n4 + i] = vx; o[4 * n4 + i] = vy; o[5 * n4 + i] = vz;
    }
    if (i < (n & 3)) {
        const int t = (n4 << 2) + i;
        const float qm = in[7 * n + t] / in[6 * n + t];
        float px = in[t], py = in[n + t], pz = in[2 * n + t];
        float vx = in[3 * n + t], vy = in[4 * n + t], vz = in[5 * n + t];
        push1(px, vx, qm * ex, dt);
        push1(py, vy, qm * ey, dt);
        push1(pz, vz, qm * ez - GRAVITY, dt);
        out[t] = px; out[n + t] = py; out[2 * n + t] = pz;
        out[3 * n + t] = vx; out[4 * n + t] = vy; out[5 * n + t] = vz;
    }
}
