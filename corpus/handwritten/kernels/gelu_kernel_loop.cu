// GELU in the Caffe/PyTorch-legacy style: a CUDA_KERNEL_LOOP grid-stride macro,
// constants as macros and __launch_bounds__ on the kernel.
#define CUDA_KERNEL_LOOP(i, n) \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

#define GELU_COEF_A 0.044715f
#define SQRT_2_OVER_PI 0.7978845608028654f
#define MAX_THREADS_PER_BLOCK 256

extern "C" __global__ void __launch_bounds__(MAX_THREADS_PER_BLOCK)
gelu_kernel_loop(const float* __restrict__ in, float* __restrict__ out, int n)
{
    CUDA_KERNEL_LOOP(index, n) {
        const float v = in[index];
        const float inner = SQRT_2_OVER_PI * (v + GELU_COEF_A * v * v * v);
        out[index] = 0.5f * v * (1.0f + tanhf(inner));
    }
}
