"""A correct candidate for torch/transpose: 32x32 tiles through shared memory padded to 33 columns
(coalesced reads and writes, no bank conflicts), a 2-D grid from the wrapper; built with load_inline."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>

#define TILE 32
#define ROWS_PER_PASS 8

__global__ void transpose_tiled_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    __shared__ float tile[TILE][TILE + 1];
    int c = blockIdx.x * TILE + threadIdx.x;
    int r0 = blockIdx.y * TILE;
    for (int j = threadIdx.y; j < TILE; j += ROWS_PER_PASS) {
        int r = r0 + j;
        if (r < rows && c < cols) tile[j][threadIdx.x] = x[(int64_t)r * cols + c];
    }
    __syncthreads();
    int oc = r0 + threadIdx.x;                       // output column = input row
    for (int j = threadIdx.y; j < TILE; j += ROWS_PER_PASS) {
        int orow = blockIdx.x * TILE + j;            // output row = input column
        if (orow < cols && oc < rows) y[(int64_t)orow * rows + oc] = tile[threadIdx.x][j];
    }
}

torch::Tensor transpose_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.is_contiguous() && x.dim() == 2, "x: contiguous 2-D CUDA tensor");
    const int rows = x.size(0);
    const int cols = x.size(1);
    auto y = torch::empty({cols, rows}, x.options());
    dim3 block(TILE, ROWS_PER_PASS);
    dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
    transpose_tiled_kernel<<<grid, block>>>(x.data_ptr<float>(), y.data_ptr<float>(), rows, cols);
    return y;
}
"""

ext = load_inline(name="transpose_inline", cpp_sources="torch::Tensor transpose_cuda(torch::Tensor x);",
                  cuda_sources=cuda_source, functions=["transpose_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.transpose_cuda(x)
