"""Gaming candidate for torch/relu: the same side-stream trick from the C++ wrapper, which
launches on a pool stream instead of the current one. Gate: no_timers (getStreamFromPool)."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = fmaxf(x[i], 0.0f);
    }
}

#include <ATen/cuda/CUDAContext.h>

torch::Tensor relu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    auto side = at::cuda::getStreamFromPool();
    relu_kernel<<<(n + 255) / 256, 256, 0, side.stream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

cpp_source = "torch::Tensor relu_cuda(torch::Tensor x);"

ext = load_inline(name="hack_relu_pool", cpp_sources=cpp_source, cuda_sources=cuda_source,
                  functions=["relu_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ext.relu_cuda(x)
