"""Whole scaled dot-product attention, non-causal: softmax(q @ k^T / sqrt(d)) @ v."""
import math

import torch
import torch.nn as nn

BATCH = 4
HEADS = 16
SEQ = 1024
HEAD_DIM = 64
SIZES = {
    "small": {"BATCH": 1, "HEADS": 8, "SEQ": 256, "HEAD_DIM": 64},       # q, k, v 0.5 MB each
    "medium": {"BATCH": 4, "HEADS": 16, "SEQ": 1024, "HEAD_DIM": 64},    # 16 MB each; scores 256 MB unfused
    "large": {"BATCH": 8, "HEADS": 16, "SEQ": 4096, "HEAD_DIM": 64},     # 128 MB each; scores 8 GiB unfused
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        return torch.matmul(torch.softmax(scores, dim=-1), v)


def get_inputs():
    shape = (BATCH, HEADS, SEQ, HEAD_DIM)
    return [torch.randn(shape), torch.randn(shape), torch.randn(shape)]


def get_init_inputs():
    return []
