"""Kernel families: each module here defines NAME, BASELINE and samples() -> list[Sample].

Modules are discovered, not listed, so a new family is one new file.
"""
from __future__ import annotations

import importlib
import pkgutil
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
        module = importlib.import_module(f"{__name__}.{info.name}")
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
        except ImportError:  # not written yet
            return out
        out.extend(handwritten.samples())
    return out
