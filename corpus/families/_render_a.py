"""Shared helpers for the families elementwise .. layernorm: labels, inputs, Sample assembly.

Private to those modules (the leading underscore keeps family discovery away).
"""
from __future__ import annotations

import string
import textwrap
from typing import Any

import numpy as np

from .base import Arg, Sample

# The H200 has 132 SMs and holds at most 2048 resident threads per SM; grid-stride
# variants size their grids from these so the grid is a visible, fixed choice.
SM_COUNT = 132
THREADS_PER_SM = 2048

# float32 unit roundoff: the scale of one rounding error in a sum.
F32_EPS = 2.0**-24


def count_label(n: int) -> str:
    """1048576 -> '1M', 4096 -> '4K', 3000001 -> '3000001'."""
    for shift, suffix in ((30, "G"), (20, "M"), (10, "K")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{suffix}"
    return str(n)


def uniform(rng: np.random.Generator, n: int, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    """n float32 values uniform in [lo, hi), generated in float32 (fast at 100M+ elements)."""
    out = rng.random(n, dtype=np.float32)
    out *= np.float32(hi - lo)
    out += np.float32(lo)
    return out


def normal(rng: np.random.Generator, n: int, scale: float = 1.0, shift: float = 0.0) -> np.ndarray:
    out = rng.standard_normal(n, dtype=np.float32)
    if scale != 1.0:
        out *= np.float32(scale)
    if shift != 0.0:
        out += np.float32(shift)
    return out


def render(template: str, **consts: Any) -> str:
    """Dedent a CUDA template and substitute its $NAME placeholders (all must be given)."""
    return string.Template(textwrap.dedent(template).lstrip("\n")).substitute(**consts)


def make_sample(
    family: str,
    baseline: str,
    *,
    variant: str,
    size: str,
    source: str,
    kernel: str,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    args: tuple[Arg, ...],
    problem_kwargs: dict[str, Any],
    params: dict[str, Any],
    bytes: int,
    flops: int,
    atol: float,
    rtol: float,
    smem: int = 0,
) -> Sample:
    """A Sample of one of our families: fills the problem path and the baseline flag."""
    return Sample(
        family=family,
        variant=variant,
        size=size,
        source=source,
        kernel=kernel,
        grid=grid,
        block=block,
        args=args,
        problem=f"corpus.families.{family}:problem",
        problem_kwargs=dict(problem_kwargs),
        smem=smem,
        params=dict(params),
        bytes=int(bytes),
        flops=int(flops),
        atol=float(atol),
        rtol=float(rtol),
        baseline=(variant == baseline),
    )
