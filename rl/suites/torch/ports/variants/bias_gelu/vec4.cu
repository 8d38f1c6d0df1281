// params: kind=vec4 block_x=256
// launch: grid=(cdiv(rows * cols, 1024)) block=(256)
// float4 over the flat array; when cols % 4 == 0 the four elements share a row and the bias is read
// as a float4 too, otherwise (and for the tail) element by element.
__device__ __forceinline__ float op(float v)
{
    float u = 0.7978845608028654f * (v + 0.044715f * v * v * v);
    return 0.5f * v * (1.0f + tanhf(u));
}
extern "C" __global__ void bias_gelu_vec4(const float* x, const float* bias, float* y, int rows, int cols)
{
    int n = rows * cols;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int e = 4 * i;
    if ((cols & 3) == 0 && e + 3 < n) {
        float4 a = reinterpret_cast<const float4*>(x)[i];
        float4 b = *reinterpret_cast<const float4*>(bias + e % cols);
        float4 r;
        r.x = op(a.x + b.x);
        r.y = op(a.y + b.y);
        r.z = op(a.z + b.z);
        r.w = op(a.w + b.w);
        reinterpret_cast<float4*>(y)[i] = r;
    } else {
        for (int j = e; j < e + 4 && j < n; ++j) y[j] = op(x[j] + bias[j % cols]);
    }
}
