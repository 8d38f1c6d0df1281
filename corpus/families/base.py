"""What a kernel family is made of: the records every family module returns.

A *family* is a CUDA source template with a parameter grid. Expanding the grid
gives `Sample`s: one compilable source, one kernel, one launch, one problem size.
A `Sample` is plain data (picklable, hashable by its source) so that a profiler
worker in another process can rebuild the inputs and the reference itself from
`problem` + `problem_kwargs`, instead of receiving gigabytes through a pipe.

Sources are device code only (NVRTC has no host or libc headers); kernels are
`extern "C"` unless `kernel` is a template name expression such as
``reduce<256>`` (the profiler passes it to nvrtcAddNameExpression).
"""
from __future__ import annotations

import hashlib
import importlib
from dataclasses import dataclass, field
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


@dataclass(frozen=True)
class Sample:
    """One measurable launch of one kernel on one problem size."""

    family: str                 # e.g. "transpose"
    variant: str                # e.g. "shared_padded_t32"
    size: str                   # size label, e.g. "n4096"
    source: str                 # full CUDA source, device code only
    kernel: str                 # extern "C" name, or a template name expression
    grid: Dim3
    block: Dim3
    args: tuple[Arg, ...]       # in the kernel's parameter order
    problem: str                # "module:function" returning a Problem
    problem_kwargs: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    smem: int = 0               # dynamic shared memory bytes
    params: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    bytes: int = 0              # fewest bytes the task must move through DRAM
    flops: int = 0              # floating-point operations the task must do
    atol: float = 1e-4
    rtol: float = 1e-4
    baseline: bool = False      # the family's reference variant for speedups
    origin: Literal["family", "handwritten"] = "family"
    style: str = ""             # handwritten kernels: which real-world style they show

    @property
    def task_id(self) -> str:
        """Stable id of the task this sample solves: family and size, not variant."""
        return f"{self.family}/{self.size}"

    @property
    def source_hash(self) -> str:
        return hashlib.sha256(self.source.encode()).hexdigest()[:16]

    @property
    def sample_id(self) -> str:
        """Stable id of this exact launch: source, kernel, launch and size."""
        key = f"{self.source_hash}|{self.kernel}|{self.grid}|{self.block}|{self.smem}|{self.size}|{sorted(self.problem_kwargs.items())}"
        return hashlib.sha256(key.encode()).hexdigest()[:16]

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]


def resolve(path: str) -> Callable[..., Any]:
    """Import "package.module:function"."""
    module, _, name = path.partition(":")
    if not name:
        raise ValueError(f"expected 'module:function', got {path!r}")
    return getattr(importlib.import_module(module), name)


def build_problem(sample: Sample) -> Problem:
    return resolve(sample.problem)(**sample.problem_kwargs)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)
