// params: kind=channel_fastest vec=1 block_x=256
// launch: grid=(cdiv(batch * channels * hw, 256)) block=(256)
// A poor port: threads are numbered channel-fastest (as if the tensor were NHWC), so
// consecutive threads touch addresses hw floats apart: every load and store is uncoalesced.
extern "C" __global__ void batchnorm2d_inference_channel_fastest(const float* x, const float* running_mean,
                                                                 const float* running_var, const float* weight,
                                                                 const float* bias, float* y, int batch, int channels, int hw)
{
    size_t n = (size_t)batch * channels * hw;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int c = (int)(t % channels);
    size_t rest = t / channels;                 // b * hw + p
    size_t b = rest / hw, p = rest % hw;
    size_t i = (b * channels + c) * hw + p;
    float scale = weight[c] * rsqrtf(running_var[c] + 1e-5f);
    y[i] = (x[i] - running_mean[c]) * scale + bias[c];
}
