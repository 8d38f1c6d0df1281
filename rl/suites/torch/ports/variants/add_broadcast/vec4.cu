// params: kind=vec4 block_x=256
// launch: grid=(cdiv(rows * cols, 1024)) block=(256)
// float4 over the flat array; when cols % 4 == 0 the four elements share a row and b is read as a
// float4 too, otherwise (and for the tail) element by element.
extern "C" __global__ void add_broadcast_vec4(const float* x, const float* b, float* y, int rows, int cols)
{
    int n = rows * cols;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int e = 4 * i;
    if ((cols & 3) == 0 && e + 3 < n) {
        float4 v = reinterpret_cast<const float4*>(x)[i];
        float4 w = *reinterpret_cast<const float4*>(b + e % cols);
        v.x += w.x; v.y += w.y; v.z += w.z; v.w += w.w;
        reinterpret_cast<float4*>(y)[i] = v;
    } else {
        for (int j = e; j < e + 4 && j < n; ++j) y[j] = x[j] + b[j % cols];
    }
}
