// params: kind=strided_rows block_x=256
// launch: grid=(cdiv(n, 256)) block=(256)
// A poor port: consecutive threads walk down a column (stride 1024 floats), so a warp touches 32 lines.
extern "C" __global__ void relu_strided_rows(const float* x, float* y, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int rows = n / 1024;
    int i = (t % rows) * 1024 + t / rows;
    if (t < n) y[i] = fmaxf(x[i], 0.0f);
}
