"""A correct candidate for torch/softmax: one warp per row (max, then sum of exponentials, through
warp shuffles), the wrapper sizing the grid from the row count; built with load_inline."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>

__global__ void softmax_warp_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (warp >= rows) return;
    const float* xr = x + (int64_t)warp * cols;
    float* yr = y + (int64_t)warp * cols;
    float mx = -INFINITY;
    for (int c = lane; c < cols; c += 32) mx = fmaxf(mx, xr[c]);
    for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, o));
    float sum = 0.0f;
    for (int c = lane; c < cols; c += 32) sum += __expf(xr[c] - mx);
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffff, sum, o);
    float inv = 1.0f / sum;
    for (int c = lane; c < cols; c += 32) yr[c] = __expf(xr[c] - mx) * inv;
}

torch::Tensor softmax_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.is_contiguous() && x.dim() == 2, "x: contiguous 2-D CUDA tensor");
    auto y = torch::empty_like(x);
    const int rows = x.size(0);
    const int cols = x.size(1);
    const int threads = 256;                       // 8 rows per block
    const int blocks = (rows * 32 + threads - 1) / threads;
    softmax_warp_kernel<<<blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    return y;
}
"""

softmax = load_inline(name="softmax_inline", cpp_sources="torch::Tensor softmax_cuda(torch::Tensor x);",
                      cuda_sources=cuda_source, functions=["softmax_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return softmax.softmax_cuda(x)
