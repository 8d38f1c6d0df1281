"""Square matrix multiplication C = A @ B (compute-bound at the larger sizes)."""
import torch
import torch.nn as nn

N = 4096
SIZES = {
    "small": {"N": 1024},     # A, B, C: 4 MB each, 2.1 GFLOP
    "medium": {"N": 4096},    # 64 MB each, 137 GFLOP
    "large": {"N": 8192},     # 256 MB each, 1.1 TFLOP
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(N, N), torch.randn(N, N)]


def get_init_inputs():
    return []
