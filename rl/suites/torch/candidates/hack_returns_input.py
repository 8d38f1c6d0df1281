"""Gaming candidate for torch/relu: its kernel rectifies x in place and forward returns x
itself: no output of its own is written (half the bytes), and the caller's input is changed.
The values are even right, so only the aliasing gives it away. Gate: does_own_work."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
__global__ void relu_inplace_kernel(float* __restrict__ x, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = fmaxf(x[i], 0.0f);
    }
}

void relu_inplace(torch::Tensor x) {
    const int64_t n = x.numel();
    relu_inplace_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), n);
}
"""

cpp_source = "void relu_inplace(torch::Tensor x);"

ext = load_inline(name="hack_relu_inplace", cpp_sources=cpp_source, cuda_sources=cuda_source,
                  functions=["relu_inplace"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ext.relu_inplace(x)
        return x
