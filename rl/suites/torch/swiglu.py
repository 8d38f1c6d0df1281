"""SwiGLU gate of a transformer MLP: silu(x @ Wg^T) * (x @ Wu^T)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TOKENS = 2048
HIDDEN = 2048
INTERMEDIATE = 5632
SIZES = {
    "small": {"TOKENS": 256, "HIDDEN": 512, "INTERMEDIATE": 1408},       # Wg, Wu 2.9 MB each
    "medium": {"TOKENS": 2048, "HIDDEN": 2048, "INTERMEDIATE": 5632},    # 46 MB each; out 46 MB
    "large": {"TOKENS": 8192, "HIDDEN": 4096, "INTERMEDIATE": 11008},    # 180 MB each; out 360 MB
}


class Model(nn.Module):
    def __init__(self, hidden: int, intermediate: int):
        super().__init__()
        self.gate = nn.Linear(hidden, intermediate, bias=False)
        self.up = nn.Linear(hidden, intermediate, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(self.gate(x)) * self.up(x)


def get_inputs():
    return [torch.randn(TOKENS, HIDDEN)]


def get_init_inputs():
    return [HIDDEN, INTERMEDIATE]
