"""Handwritten CUDA kernels in real-world styles, grouped into tasks.

Unlike the template families, every kernel here is its own .cu file in
kernels/, written the way repositories and LLMs write CUDA (templates, macros,
cooperative groups, vector types, deliberately naive versions...). Kernels of
one task group (`family`, prefixed "hw_") solve the same problem with the same
problem function, so they can be ranked against each other and against the
group's baseline.

    from corpus.handwritten import samples
    samples()  # -> list[Sample], deterministic order
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from analyzer.profile.spec import Buffer

from corpus.families.base import Sample

from .catalog import GROUPS, KERNELS
from .spec import Group, KernelSpec, Size

__all__ = ["KERNEL_DIR", "GROUPS", "KERNELS", "samples", "source", "samples_for"]

KERNEL_DIR = Path(__file__).parent / "kernels"
PROBLEMS = "corpus.handwritten.problems"


@lru_cache(maxsize=None)
def source(file: str) -> str:
    """The full CUDA source of kernels/<file>.cu."""
    return (KERNEL_DIR / f"{file}.cu").read_text()


def _variant(spec: KernelSpec, block) -> str:
    shape = f"{block[0]}" if block[1] == 1 and block[2] == 1 else f"{block[0]}x{block[1]}"
    return f"{spec.variant}_b{shape}"


def samples_for(spec: KernelSpec, sizes: tuple[Size, ...] | None = None) -> list[Sample]:
    """The samples of one kernel at its group's sizes (or at `sizes`, for checks)."""
    group: Group = GROUPS[spec.family]
    out: list[Sample] = []
    for size in sizes if sizes is not None else group.sizes:
        kw = size.kwargs
        args = tuple(
            Buffer(a.name, a.dtype, a.size, spec.roles[a.name]) if isinstance(a, Buffer) and a.name in spec.roles else a
            for a in group.args(kw)
        )
        for block in spec.blocks:
            grid, smem = spec.launch(kw, block)
            params = {"block_x": block[0], "block_y": block[1], "file": f"{spec.file}.cu", "tags": list(spec.tags)}
            if spec.template_args:
                params.update(spec.template_args(kw, block))
            out.append(Sample(
                family=spec.family,
                variant=_variant(spec, block),
                size=size.label,
                source=source(spec.file),
                kernel=spec.kernel_name(kw, block),
                grid=grid,
                block=block,
                args=args,
                problem=f"{PROBLEMS}:{group.problem}",
                problem_kwargs={**kw, "seed": group.seed},
                smem=smem,
                params=params,
                bytes=group.bytes(kw),
                flops=group.flops(kw),
                atol=group.atol(kw),
                rtol=group.rtol,
                baseline=spec.baseline,
                origin="handwritten",
                style=spec.style,
            ))
    return out


def samples() -> list[Sample]:
    """Every handwritten kernel at every size and block shape, in catalog order."""
    out: list[Sample] = []
    for spec in KERNELS:
        out.extend(samples_for(spec))
    return out
