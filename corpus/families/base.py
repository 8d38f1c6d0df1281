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
from dataclasses import dataclass, field
from typing import Any, Literal

from analyzer.profile.spec import DTYPES, Arg, Buffer, Dim3, Problem, Scalar, resolve

__all__ = ["DTYPES", "Arg", "Buffer", "Dim3", "Problem", "Scalar", "Sample", "resolve", "build_problem", "cdiv"]


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


def build_problem(sample: Sample) -> Problem:
    return resolve(sample.problem)(**sample.problem_kwargs)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)
