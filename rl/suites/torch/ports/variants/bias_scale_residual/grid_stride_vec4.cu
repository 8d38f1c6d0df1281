// params: kind=grid_stride_vec4 block_x=256
// launch: grid=(1056) block=(256)
// A grid-stride loop of float4s over a fixed grid of 8 blocks per SM; the bias as float4 when
// cols % 4 == 0, a scalar path otherwise and for the tail.
extern "C" __global__ void bias_scale_residual_grid_stride_vec4(const float* x, const float* residual, const float* bias,
                                                                float* y, int rows, int cols, float scale)
{
    int n = rows * cols;
    int n4 = (cols & 3) == 0 ? n / 4 : 0;
    int stride = gridDim.x * blockDim.x;
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = tid; i < n4; i += stride) {
        float4 a = reinterpret_cast<const float4*>(x)[i];
        float4 q = reinterpret_cast<const float4*>(residual)[i];
        float4 b = *reinterpret_cast<const float4*>(bias + (4 * i) % cols);
        float4 r;
        r.x = (a.x + b.x) * scale + q.x;
        r.y = (a.y + b.y) * scale + q.y;
        r.z = (a.z + b.z) * scale + q.z;
        r.w = (a.w + b.w) * scale + q.w;
        reinterpret_cast<float4*>(y)[i] = r;
    }
    for (int j = 4 * n4 + tid; j < n; j += stride) y[j] = (x[j] + bias[j % cols]) * scale + residual[j];
}
