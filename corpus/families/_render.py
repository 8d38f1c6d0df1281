"""Shared helpers of the template families: labels, templates, inputs, Sample assembly.

Private to those modules (the leading underscore keeps family discovery away).
"""
from __future__ import annotations

import string
import textwrap
from typing import Any, Iterator

import numpy as np

from .base import Arg, Sample

# The H200 has 132 SMs and holds at most 2048 resident threads per SM; grid-stride
# variants size their grids from these so the grid is a visible, fixed choice.
SM_COUNT = 132
THREADS_PER_SM = 2048

# float32 unit roundoff: the scale of one rounding error in a sum.
F32_EPS = 2.0**-24
# Largest static __shared__ allocation one block may declare.
STATIC_SMEM_LIMIT = 48 * 1024


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


def chunks(n: int, step: int) -> Iterator[tuple[int, int]]:
    """[0, n) in pieces of `step`: references work chunk by chunk so float64
    temporaries stay cache-sized and large sizes build in about a second."""
    for lo in range(0, n, step):
        yield lo, min(n, lo + step)


def render(template: str, **consts: Any) -> str:
    """Dedent a CUDA template and substitute its $NAME placeholders (all must be given)."""
    return string.Template(textwrap.dedent(template).lstrip("\n")).substitute(**consts)


def f32_literal(x: float) -> str:
    """A float literal that reads back as exactly np.float32(x)."""
    return np.format_float_positional(np.float32(x), unique=True, trim="0") + "f"


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
    """A Sample of one of these families: fills the problem path and the baseline flag."""
    return Sample(
        family=family,
        variant=variant,
        size=size,
        source=source,
        kernel=kernel,
        grid=tuple(int(g) for g in grid),  # type: ignore[arg-type]
        block=tuple(int(b) for b in block),  # type: ignore[arg-type]
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
