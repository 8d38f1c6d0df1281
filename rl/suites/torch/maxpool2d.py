"""2-D max pooling, 2x2 window, stride 2 (NCHW)."""
import torch
import torch.nn as nn

BATCH = 32
CHANNELS = 128
H = 64
W = 64
SIZES = {
    "small": {"BATCH": 8, "CHANNELS": 32, "H": 64, "W": 64},         # 4 MB in, 1 MB out
    "medium": {"BATCH": 32, "CHANNELS": 128, "H": 64, "W": 64},      # 64 MB in, 16 MB out
    "large": {"BATCH": 64, "CHANNELS": 256, "H": 128, "W": 128},     # 1 GiB in, 256 MB out
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, H, W)]


def get_init_inputs():
    return []
