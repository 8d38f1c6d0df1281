"""LayerNorm over the last dimension with a learned scale and shift."""
import torch
import torch.nn as nn

TOKENS = 8192
HIDDEN = 2048
SIZES = {
    "small": {"TOKENS": 1024, "HIDDEN": 1024},     # 4 MB in, 4 MB out
    "medium": {"TOKENS": 8192, "HIDDEN": 2048},    # 64 MB in, 64 MB out
    "large": {"TOKENS": 65536, "HIDDEN": 4096},    # 1 GiB in, 1 GiB out
}


class Model(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.norm = nn.LayerNorm(hidden, eps=1e-5)
        # non-trivial affine parameters, so a kernel that ignores them fails
        with torch.no_grad():
            self.norm.weight.normal_(1.0, 0.1)
            self.norm.bias.normal_(0.0, 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


def get_inputs():
    return [torch.randn(TOKENS, HIDDEN)]


def get_init_inputs():
    return [HIDDEN]
