"""Tall-skinny matrix product: a (M, K) times a small (K, N) matrix, M >> K, N (memory-bound)."""
import torch
import torch.nn as nn

M = 262144
K = 64
N = 64
SIZES = {
    "small": {"M": 16384, "K": 64, "N": 64},      # A 4 MB, C 4 MB
    "medium": {"M": 262144, "K": 64, "N": 64},    # A 64 MB, C 64 MB
    "large": {"M": 2097152, "K": 64, "N": 64},    # A 512 MB, C 512 MB
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []
