"""2-D convolution, 3x3 kernel, stride 1, padding 1, with bias (NCHW)."""
import torch
import torch.nn as nn

BATCH = 32
CIN = 128
COUT = 128
H = 56
W = 56
SIZES = {
    "small": {"BATCH": 8, "CIN": 64, "COUT": 64, "H": 56, "W": 56},        # in 6.4 MB, 1.9 GFLOP
    "medium": {"BATCH": 32, "CIN": 128, "COUT": 128, "H": 56, "W": 56},    # in 51 MB, 29.6 GFLOP
    "large": {"BATCH": 64, "CIN": 128, "COUT": 128, "H": 112, "W": 112},   # in 411 MB, 237 GFLOP
}


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel_size=3, stride=1, padding=1, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT]
