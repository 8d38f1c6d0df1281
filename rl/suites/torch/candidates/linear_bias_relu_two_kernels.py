"""A candidate for torch/linear_bias_relu in two kernels: a shared-memory tiled x @ W^T, then
bias + ReLU in place. Its analysis has two launches, each with its own structural terms."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>

#define TILE 16

// y[m, n] = sum_k x[m, k] * w[n, k]  (x: M x K, w: N x K, both row-major)
__global__ void matmul_wt_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                 float* __restrict__ y, int M, int N, int K) {
    __shared__ float xs[TILE][TILE];
    __shared__ float ws[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        int kx = k0 + threadIdx.x;
        xs[threadIdx.y][threadIdx.x] = (row < M && kx < K) ? x[row * K + kx] : 0.0f;
        int wrow = blockIdx.x * TILE + threadIdx.y;
        ws[threadIdx.y][threadIdx.x] = (wrow < N && kx < K) ? w[wrow * K + kx] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            acc += xs[threadIdx.y][k] * ws[threadIdx.x][k];
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        y[row * N + col] = acc;
    }
}

__global__ void bias_relu_kernel(float* __restrict__ y, const float* __restrict__ b, int M, int N) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < M * N) {
        y[i] = fmaxf(y[i] + b[i % N], 0.0f);
    }
}

torch::Tensor linear_bias_relu(torch::Tensor x, torch::Tensor w, torch::Tensor b) {
    const int M = x.size(0);
    const int K = x.size(1);
    const int N = w.size(0);
    auto y = torch::empty({M, N}, x.options());
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    matmul_wt_kernel<<<grid, block>>>(x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(), M, N, K);
    const int threads = 256;
    const int blocks = (M * N + threads - 1) / threads;
    bias_relu_kernel<<<blocks, threads>>>(y.data_ptr<float>(), b.data_ptr<float>(), M, N);
    return y;
}
"""

ext = load_inline(name="linear_bias_relu_2k",
                  cpp_sources="torch::Tensor linear_bias_relu(torch::Tensor x, torch::Tensor w, torch::Tensor b);",
                  cuda_sources=cuda_source, functions=["linear_bias_relu"])


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.linear_bias_relu(x.contiguous(), self.linear.weight, self.linear.bias)
