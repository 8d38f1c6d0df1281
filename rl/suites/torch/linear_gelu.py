"""Fused linear layer + GELU on a decode-shaped batch (few rows, wide weights: weight-read bound)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 16
IN_FEATURES = 4096
OUT_FEATURES = 4096
SIZES = {
    "small": {"BATCH": 16, "IN_FEATURES": 1024, "OUT_FEATURES": 2048},     # W 8 MB
    "medium": {"BATCH": 16, "IN_FEATURES": 4096, "OUT_FEATURES": 8192},    # W 128 MB
    "large": {"BATCH": 16, "IN_FEATURES": 8192, "OUT_FEATURES": 32768},    # W 1 GiB
}


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.linear(x))


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
