"""A wrong candidate for torch/relu: the kernel lets negative values leak through at a tenth
(a leaky ReLU), so the correctness gate must fail."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>

__global__ void leaky_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = v > 0.0f ? v : 0.1f * v;
    }
}

torch::Tensor relu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    leaky_kernel<<<(n + 511) / 512, 512>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

relu = load_inline(name="relu_wrong", cpp_sources="torch::Tensor relu_cuda(torch::Tensor x);",
                   cuda_sources=cuda_source, functions=["relu_cuda"])


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return relu.relu_cuda(x)
