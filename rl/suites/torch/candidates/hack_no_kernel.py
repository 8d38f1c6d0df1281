"""Gaming candidate for torch/relu: no CUDA at all, PyTorch's clamp does the work.
Gate: launches_own_kernel."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.clamp(min=0.0)
