"""Mean softmax cross-entropy of logits against integer class targets (a scalar output)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

ROWS = 512
CLASSES = 32000
SIZES = {
    "small": {"ROWS": 32, "CLASSES": 32000},       # logits 4 MB
    "medium": {"ROWS": 512, "CLASSES": 32000},     # logits 65 MB
    "large": {"ROWS": 2048, "CLASSES": 128256},    # logits 1 GB
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.cross_entropy(logits, targets)


def get_inputs():
    return [torch.randn(ROWS, CLASSES), torch.randint(0, CLASSES, (ROWS,))]


def get_init_inputs():
    return []
