"""Sum over the last dimension of a 2-D tensor (one result per row)."""
import torch
import torch.nn as nn

ROWS = 4096
COLS = 4096
SIZES = {
    "small": {"ROWS": 1024, "COLS": 1024},      # 4 MB in
    "medium": {"ROWS": 4096, "COLS": 4096},     # 64 MB in
    "large": {"ROWS": 16384, "COLS": 16384},    # 1 GiB in
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
