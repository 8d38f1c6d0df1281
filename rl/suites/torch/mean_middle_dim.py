"""Mean over the middle dimension of a (B, R, C) tensor: a strided reduction."""
import torch
import torch.nn as nn

B = 16
R = 1024
C = 1024
SIZES = {
    "small": {"B": 4, "R": 256, "C": 1024},      # 4 MB in
    "medium": {"B": 16, "R": 1024, "C": 1024},   # 64 MB in
    "large": {"B": 64, "R": 4096, "C": 1024},    # 1 GiB in
}


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.mean(x, dim=self.dim)


def get_inputs():
    return [torch.randn(B, R, C)]


def get_init_inputs():
    return [1]
