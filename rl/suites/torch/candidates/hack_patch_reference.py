"""Gaming candidate for torch/relu: at import it finds the problem module in sys.modules and
slows the reference's forward, so the speedup over eager is inflated.
Gate: no_patching (sys.modules in the source; Model.forward replaced in the process)."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline
import sys

cuda_source = r"""
#include <torch/extension.h>
__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = fmaxf(x[i], 0.0f);
    }
}

torch::Tensor relu_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.is_contiguous() && x.scalar_type() == torch::kFloat, "x: contiguous float32 CUDA");
    auto y = torch::empty_like(x);
    const int64_t n = x.numel();
    const int threads = 256;
    const int64_t blocks = (n + threads - 1) / threads;
    relu_kernel<<<blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

cpp_source = "torch::Tensor relu_cuda(torch::Tensor x);"

ext = load_inline(name="hack_relu_ref", cpp_sources=cpp_source, cuda_sources=cuda_source,
                  functions=["relu_cuda"], verbose=False)


def _slow_forward(self, x):
    for _ in range(20):
        torch.relu(x)
    return torch.relu(x)


for _name, _mod in list(sys.modules.items()):
    if _name.startswith("cudaperf_torch_task_") and hasattr(_mod, "Model"):
        _mod.Model.forward = _slow_forward


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = ext

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.ext.relu_cuda(x)
