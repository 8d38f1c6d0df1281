"""Kernel families: each module here defines NAME, BASELINE and samples() -> list[Sample].

Modules are discovered, not listed, so a new family is one new file.
"""
from __future__ import annotations

import importlib
import pkgutil
import sys
from functools import lru_cache
from types import ModuleType

from .base import Buffer, Problem, Sample, Scalar, build_problem, cdiv, resolve

__all__ = ["Buffer", "Problem", "Sample", "Scalar", "build_problem", "cdiv", "resolve", "families", "all_samples"]

_NOT_FAMILIES = {"base"}


@lru_cache(maxsize=1)
def families() -> dict[str, ModuleType]:
    """name -> family module, for every module in this package that defines samples()."""
    found: dict[str, ModuleType] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name in _NOT_FAMILIES or info.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(f"{__name__}.{info.name}")
        except Exception as exc:  # one broken family must not hide the others
            print(f"warning: family module {info.name} failed to import: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        if hasattr(module, "samples"):
            found[getattr(module, "NAME", info.name)] = module
    return dict(sorted(found.items()))


def all_samples(include_handwritten: bool = True) -> list[Sample]:
    out: list[Sample] = []
    for module in families().values():
        out.extend(module.samples())
    if include_handwritten:
        try:
            from corpus import handwritten

            out.extend(handwritten.samples())
        except Exception as exc:  # a broken hand-written set must not hide the families
            print(f"warning: corpus.handwritten failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    return out
