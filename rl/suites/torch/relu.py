"""ReLU over a 2-D tensor (elementwise, memory-bound)."""
import torch
import torch.nn as nn

# Working set = input + output, fp32. H200 L2 is 50 MB.
BATCH = 4096
DIM = 4096
SIZES = {
    "small": {"BATCH": 1024, "DIM": 1024},      # 4 MB + 4 MB: L2-resident
    "medium": {"BATCH": 4096, "DIM": 4096},     # 64 MB + 64 MB: just past L2
    "large": {"BATCH": 16384, "DIM": 16384},    # 1 GiB + 1 GiB: DRAM-bound
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
