"""Matrix-vector product y = A @ x (memory-bound: every element of A is read once)."""
import torch
import torch.nn as nn

M = 8192
K = 4096
SIZES = {
    "small": {"M": 2048, "K": 2048},      # A 16 MB
    "medium": {"M": 8192, "K": 4096},     # A 128 MB
    "large": {"M": 16384, "K": 16384},    # A 1 GiB
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, x)


def get_inputs():
    return [torch.randn(M, K), torch.randn(K)]


def get_init_inputs():
    return []
