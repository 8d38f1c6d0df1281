"""Elementwise add of a (rows, cols) tensor and a (cols,) row vector broadcast over the rows."""
import torch
import torch.nn as nn

ROWS = 4096
COLS = 4096
SIZES = {
    "small": {"ROWS": 1024, "COLS": 1024},      # 4 MB in, 4 MB out
    "medium": {"ROWS": 4096, "COLS": 4096},     # 64 MB in, 64 MB out
    "large": {"ROWS": 16384, "COLS": 16384},    # 1 GiB in, 1 GiB out
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return x + b


def get_inputs():
    return [torch.randn(ROWS, COLS), torch.randn(COLS)]


def get_init_inputs():
    return []
