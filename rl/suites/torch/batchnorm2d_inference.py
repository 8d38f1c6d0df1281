"""BatchNorm2d in inference mode: per-channel (x - running_mean) / sqrt(running_var + eps) * w + b."""
import torch
import torch.nn as nn

BATCH = 32
CHANNELS = 128
H = 64
W = 64
SIZES = {
    "small": {"BATCH": 8, "CHANNELS": 32, "H": 64, "W": 64},         # 4 MB in, 4 MB out
    "medium": {"BATCH": 32, "CHANNELS": 128, "H": 64, "W": 64},      # 64 MB in, 64 MB out
    "large": {"BATCH": 64, "CHANNELS": 256, "H": 128, "W": 128},     # 1 GiB in, 1 GiB out
}


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(channels)
        # statistics and affine parameters away from the identity, so each one matters
        with torch.no_grad():
            self.bn.running_mean.normal_(0.0, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)
            self.bn.weight.normal_(1.0, 0.1)
            self.bn.bias.normal_(0.0, 0.1)
        self.eval()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, H, W)]


def get_init_inputs():
    return [CHANNELS]
