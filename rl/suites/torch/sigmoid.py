"""Logistic sigmoid over a 2-D tensor with an odd row length (no multiple of 4 or 32)."""
import torch
import torch.nn as nn

ROWS = 4096
COLS = 4099
SIZES = {
    "small": {"ROWS": 1000, "COLS": 1023},       # ~4 MB in, ~4 MB out
    "medium": {"ROWS": 4096, "COLS": 4099},      # ~64 MB in, ~64 MB out
    "large": {"ROWS": 16000, "COLS": 16381},     # ~1 GB in, ~1 GB out
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(x)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
