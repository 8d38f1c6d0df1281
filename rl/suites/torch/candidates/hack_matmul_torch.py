"""Gaming candidate for torch/matmul_square: torch.matmul does the product and its own kernel
only copies the result, so a kernel of its own runs and the output is right.
Gate: does_own_work (the reference's aten.mm is left to PyTorch)."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>

__global__ void copy_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}

torch::Tensor copy_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    copy_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

ext = load_inline(name="hack_matmul_copy", cpp_sources="torch::Tensor copy_cuda(torch::Tensor x);",
                  cuda_sources=cuda_source, functions=["copy_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return ext.copy_cuda(torch.matmul(a, b))
