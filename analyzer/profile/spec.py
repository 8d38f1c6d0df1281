"""The launch description the profiler works from: arguments, problems, dims.

Plain picklable data, so a worker process can rebuild inputs and expected
outputs itself from a "module:function" path instead of receiving them.
bfloat16 arrays are held as np.uint16 bit patterns (numpy has no bfloat16);
`bf16_to_f32`/`f32_to_bf16` convert.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Literal

import numpy as np

Dim3 = tuple[int, int, int]

# The dtypes a kernel argument may have, by the names numpy gives them.
DTYPES = ("float32", "float64", "float16", "bfloat16", "int32", "uint32", "int64", "uint8", "int8")


@dataclass(frozen=True)
class Buffer:
    """A pointer argument: `size` elements of `dtype` in device memory.

    role: "in" is uploaded from the problem's inputs; "out" is poisoned before
    every launch (so unwritten elements fail the check); "inout" is uploaded
    and checked; "zero" is an output zeroed before every launch (atomics
    accumulate into it); "scratch" is device memory nobody checks.
    """

    name: str
    dtype: str
    size: int
    role: Literal["in", "out", "inout", "zero", "scratch"] = "in"

    def __post_init__(self) -> None:
        if self.dtype not in DTYPES:
            raise ValueError(f"buffer {self.name}: unknown dtype {self.dtype!r}")
        if self.size <= 0:
            raise ValueError(f"buffer {self.name}: size must be positive, got {self.size}")


@dataclass(frozen=True)
class Scalar:
    """A by-value argument."""

    name: str
    dtype: str
    value: int | float


Arg = Buffer | Scalar


@dataclass(frozen=True)
class Problem:
    """Inputs (by buffer name) and the expected outputs (by buffer name)."""

    inputs: dict[str, np.ndarray]
    expected: dict[str, np.ndarray]


def resolve(path: str) -> Callable[..., Any]:
    """Import "package.module:function"."""
    module, _, name = path.partition(":")
    if not name:
        raise ValueError(f"expected 'module:function', got {path!r}")
    return getattr(importlib.import_module(module), name)



def f32_to_bf16(x: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns (uint16), round to nearest even."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = bits + (0x7FFF + ((bits >> 16) & 1))
    return (rounded >> 16).astype(np.uint16)


def bf16_to_f32(x: np.ndarray) -> np.ndarray:
    return (np.asarray(x, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
