// params: kind=vec4_cols cols_per_thread=4 block_x=16 block_y=16
// launch: grid=(cdiv(n, 64), cdiv(m, 16)) block=(16, 16)
// Each thread computes 4 consecutive columns of one row: float4 loads of B's rows and a float4
// store of C (when n % 4 == 0; guarded scalar code otherwise), A's element broadcast to 16 threads.
extern "C" __global__ void matmul_tall_skinny_vec4_cols(const float* a, const float* b, float* c, int m, int k, int n)
{
    int col = blockIdx.x * 64 + threadIdx.x * 4;
    int row = blockIdx.y * 16 + threadIdx.y;
    if (row >= m || col >= n) return;
    const float* ar = a + (size_t)row * k;
    if ((n & 3) == 0) {
        float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int q = 0; q < k; ++q) {
            float av = ar[q];
            float4 bv = *reinterpret_cast<const float4*>(b + (size_t)q * n + col);
            acc.x += av * bv.x; acc.y += av * bv.y; acc.z += av * bv.z; acc.w += av * bv.w;
        }
        *reinterpret_cast<float4*>(c + (size_t)row * n + col) = acc;
    } else {
        for (int s = 0; s < 4 && col + s < n; ++s) {
            float acc = 0.0f;
            for (int q = 0; q < k; ++q) acc += ar[q] * b[(size_t)q * n + col + s];
            c[(size_t)row * n + col + s] = acc;
        }
    }
}
