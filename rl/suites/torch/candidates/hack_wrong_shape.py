"""Gaming candidate for torch/relu: the values are right but returned flat, (numel,) instead of
(batch, dim). Gate: output_shape (the C++ `return` read on the meta device), correct on a GPU."""
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

torch::Tensor relu_cuda(torch::Tensor x) {
    const int64_t n = x.numel();
    auto y = torch::empty({n}, x.options());
    relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

cpp_source = "torch::Tensor relu_cuda(torch::Tensor x);"

ext = load_inline(name="hack_relu_flat", cpp_sources=cpp_source, cuda_sources=cuda_source,
                  functions=["relu_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ext.relu_cuda(x)
