"""Fused conv 3x3 (padding 1) + ReLU + 2x2 max pool, the classic CNN block."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 32
CIN = 64
COUT = 128
H = 64
W = 64
SIZES = {
    "small": {"BATCH": 8, "CIN": 32, "COUT": 64, "H": 64, "W": 64},        # in 4 MB, conv out 8 MB
    "medium": {"BATCH": 32, "CIN": 64, "COUT": 128, "H": 64, "W": 64},     # in 32 MB, conv out 64 MB
    "large": {"BATCH": 64, "CIN": 64, "COUT": 128, "H": 128, "W": 128},    # in 256 MB, conv out 512 MB
}


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.max_pool2d(torch.relu(self.conv(x)), kernel_size=2, stride=2)


def get_inputs():
    return [torch.randn(BATCH, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT]
