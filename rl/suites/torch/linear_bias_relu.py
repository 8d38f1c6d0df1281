"""Fused linear layer + bias + ReLU: relu(x @ W^T + b)."""
import torch
import torch.nn as nn

BATCH = 4096
IN_FEATURES = 4096
OUT_FEATURES = 4096
SIZES = {
    "small": {"BATCH": 1024, "IN_FEATURES": 1024, "OUT_FEATURES": 1024},     # x, W, y 4 MB each; 2.1 GFLOP
    "medium": {"BATCH": 4096, "IN_FEATURES": 4096, "OUT_FEATURES": 4096},    # 64 MB each; 137 GFLOP
    "large": {"BATCH": 8192, "IN_FEATURES": 8192, "OUT_FEATURES": 8192},    # 256 MB each; 1.1 TFLOP
}


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x))


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
