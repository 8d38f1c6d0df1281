"""Attention probabilities: softmax(q @ k^T / sqrt(d)) over keys, per batch and head."""
import math

import torch
import torch.nn as nn

BATCH = 8
HEADS = 16
SEQ = 1024
HEAD_DIM = 64
SIZES = {
    "small": {"BATCH": 1, "HEADS": 8, "SEQ": 256, "HEAD_DIM": 64},       # q, k 0.5 MB each; scores 2 MB
    "medium": {"BATCH": 4, "HEADS": 16, "SEQ": 512, "HEAD_DIM": 64},     # q, k 8 MB each; scores 64 MB
    "large": {"BATCH": 8, "HEADS": 16, "SEQ": 2048, "HEAD_DIM": 64},     # q, k 64 MB each; scores 2 GiB
}


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        return torch.softmax(scores, dim=-1)


def get_inputs():
    return [torch.randn(BATCH, HEADS, SEQ, HEAD_DIM), torch.randn(BATCH, HEADS, SEQ, HEAD_DIM)]


def get_init_inputs():
    return []
