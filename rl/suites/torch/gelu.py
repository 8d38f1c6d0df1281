"""GELU (exact, erf form) over a 2-D tensor."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 4096
DIM = 4096
SIZES = {
    "small": {"BATCH": 1024, "DIM": 1024},      # 4 MB in, 4 MB out
    "medium": {"BATCH": 4096, "DIM": 4096},     # 64 MB in, 64 MB out
    "large": {"BATCH": 16384, "DIM": 16384},    # 1 GiB in, 1 GiB out
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(x)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
