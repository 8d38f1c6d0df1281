"""Batched matrix multiplication: (B, M, K) @ (B, K, N)."""
import torch
import torch.nn as nn

BATCH = 64
M = 512
K = 512
N = 512
SIZES = {
    "small": {"BATCH": 16, "M": 256, "K": 256, "N": 256},      # 4 MB per operand
    "medium": {"BATCH": 64, "M": 512, "K": 512, "N": 512},     # 64 MB per operand
    "large": {"BATCH": 128, "M": 1024, "K": 1024, "N": 1024},  # 512 MB per operand
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(BATCH, M, K), torch.randn(BATCH, K, N)]


def get_init_inputs():
    return []
