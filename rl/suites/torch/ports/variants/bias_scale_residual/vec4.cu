// params: kind=vec4 block_x=256
// launch: grid=(cdiv(rows * cols, 1024)) block=(256)
// float4 over the flat array; when cols % 4 == 0 the four elements share a row and the bias is read
// as a float4 too, otherwise (and for the tail) element by element.
extern "C" __global__ void bias_scale_residual_vec4(const float* x, const float* residual, const float* bias, float* y, int rows, int cols, float scale)
{
    int n = rows * cols;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int e = 4 * i;
    if ((cols & 3) == 0 && e + 3 < n) {
        float4 a = reinterpret_cast<const float4*>(x)[i];
        float4 q = reinterpret_cast<const float4*>(residual)[i];
        float4 b = *reinterpret_cast<const float4*>(bias + e % cols);
        float4 r;
        r.x = (a.x + b.x) * scale + q.x;
        r.y = (a.y + b.y) * scale + q.y;
        r.z = (a.z + b.z) * scale + q.z;
        r.w = (a.w + b.w) * scale + q.w;
        reinterpret_cast<float4*>(y)[i] = r;
    } else {
        for (int j = e; j < e + 4 && j < n; ++j) y[j] = (x[j] + bias[j % cols]) * scale + residual[j];
    }
}
