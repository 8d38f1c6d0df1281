"""Hyperbolic tangent over a flat vector."""
import torch
import torch.nn as nn

N = 1 << 24
SIZES = {
    "small": {"N": 1 << 20},     # 4 MB in, 4 MB out
    "medium": {"N": 1 << 24},    # 64 MB in, 64 MB out
    "large": {"N": 1 << 28},     # 1 GiB in, 1 GiB out
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x)


def get_inputs():
    return [torch.randn(N)]


def get_init_inputs():
    return []
