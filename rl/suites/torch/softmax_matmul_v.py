"""Second half of attention: softmax(scores) @ v, per batch and head."""
import torch
import torch.nn as nn

BATCH = 4
HEADS = 16
SEQ = 512
HEAD_DIM = 64
SIZES = {
    "small": {"BATCH": 1, "HEADS": 8, "SEQ": 256, "HEAD_DIM": 64},       # scores 2 MB, v 0.5 MB
    "medium": {"BATCH": 4, "HEADS": 16, "SEQ": 512, "HEAD_DIM": 64},    # scores 64 MB, v 8 MB
    "large": {"BATCH": 4, "HEADS": 16, "SEQ": 2048, "HEAD_DIM": 64},    # scores 1 GiB, v 32 MB
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, scores: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return torch.matmul(torch.softmax(scores, dim=-1), v)


def get_inputs():
    return [torch.randn(BATCH, HEADS, SEQ, SEQ), torch.randn(BATCH, HEADS, SEQ, HEAD_DIM)]


def get_init_inputs():
    return []
