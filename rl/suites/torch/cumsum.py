"""Inclusive prefix sum over the last dimension (a scan along each row)."""
import torch
import torch.nn as nn

ROWS = 4096
COLS = 4096
SIZES = {
    "small": {"ROWS": 256, "COLS": 4096},       # 4 MB in, 4 MB out
    "medium": {"ROWS": 4096, "COLS": 4096},     # 64 MB in, 64 MB out
    "large": {"ROWS": 8192, "COLS": 32768},     # 1 GiB in, 1 GiB out
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=-1)


def get_inputs():
    # uniform in [0, 1): partial sums grow steadily, so rtol covers the rounding that a different
    # summation order gives (randn partial sums hover near zero, where only atol would)
    return [torch.rand(ROWS, COLS)]


def get_init_inputs():
    return []
