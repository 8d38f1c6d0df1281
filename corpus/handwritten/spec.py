"""Records that describe the handwritten kernels: task groups and kernel specs.

A `Group` is one task (one problem function, its sizes, its arguments, its
bytes/flops and tolerances); a `KernelSpec` is one .cu file solving it, with
the launch rule that turns (size kwargs, block) into a grid and dynamic shared
memory. `corpus.handwritten.kernels_spec` lists them; `samples()` expands them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from analyzer.profile.spec import Arg, Dim3

Kw = Mapping[str, Any]
# (size kwargs, block) -> (grid, dynamic shared memory bytes)
LaunchRule = Callable[[Kw, Dim3], tuple[Dim3, int]]


@dataclass(frozen=True)
class Size:
    label: str
    kwargs: dict[str, int]


@dataclass(frozen=True)
class Group:
    family: str                              # "hw_..." task name
    problem: str                             # function name in corpus.handwritten.problems
    description: str
    sizes: tuple[Size, ...]
    args: Callable[[Kw], tuple[Arg, ...]]    # kernel arguments, in parameter order
    bytes: Callable[[Kw], int]
    flops: Callable[[Kw], int]
    atol: Callable[[Kw], float]
    rtol: float
    seed: int = 0


@dataclass(frozen=True)
class KernelSpec:
    file: str                                # stem of kernels/<file>.cu
    family: str
    variant: str                             # short name of the approach
    kernel: str                              # extern "C" name or template name expression;
                                             # {bx} {by} and size kwargs are substituted
    style: str                               # the main real-world style it shows
    launch: LaunchRule
    blocks: tuple[Dim3, ...]
    tags: tuple[str, ...] = ()               # every style feature it shows (style included)
    baseline: bool = False
    roles: dict[str, str] = field(default_factory=dict)       # per-kernel Buffer role overrides
    template_args: Callable[[Kw, Dim3], dict[str, int]] | None = None  # extra name substitutions

    def kernel_name(self, kw: Kw, block: Dim3) -> str:
        extra = self.template_args(kw, block) if self.template_args else {}
        return self.kernel.format(bx=block[0], by=block[1], **kw, **extra)
