"""Tasks an RL loop trains on, one interface for every kind.

A task is a problem to solve fast: an id, a reference (inside its `Problem`: inputs and
the expected output, built from a seed), a tolerance, a problem size, and a baseline
launch whose time every speedup is measured against. Kind `family` tasks come from the
corpus families: one family at one size, and every variant of the family's grid at that
size is a known candidate (`candidates`), which is what the built-in policy moves between
and what `rl.oracle.Replay` can answer for.

Other kinds (`torch`, `c`) register loaders with `register_kind`; `get(task_id)` and
`all_tasks()` see them all.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterable

from corpus.families.base import Sample

__all__ = ["Task", "UnknownTask", "family_tasks", "all_tasks", "get", "register_kind", "neighbours", "param_key",
           "task_samples", "c_task_samples", "torch_task_samples"]


class UnknownTask(KeyError):
    def __str__(self) -> str:  # KeyError quotes its message; a one-line error reads better plain
        return str(self.args[0]) if self.args else "unknown task"


@dataclass(frozen=True)
class Task:
    id: str                                   # stable: "transpose/n4096", "torch/relu_1m", ...
    kind: str                                 # "family", "torch", "c"
    baseline: Sample                          # what speedups are measured against
    candidates: tuple[Sample, ...] = ()       # the known variants (family tasks: the whole grid at this size)
    description: str = ""
    meta: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def family(self) -> str:
        return self.baseline.family

    @property
    def size(self) -> str:
        return self.baseline.size

    @property
    def atol(self) -> float:
        return self.baseline.atol

    @property
    def rtol(self) -> float:
        return self.baseline.rtol

    def candidate(self, sample_id: str) -> Sample:
        for s in self.candidates:
            if s.sample_id == sample_id:
                return s
        raise UnknownTask(f"{self.id}: no candidate {sample_id}")


def param_key(sample: Sample) -> str:
    """A sample's grid point as one comparable string (params are plain JSON data)."""
    return json.dumps(sample.params, sort_keys=True, default=str)


def neighbours(task: Task, sample: Sample) -> list[tuple[str, Sample]]:
    """The candidates one source transformation away: every sample of the task whose parameters
    differ from `sample`'s in exactly one key (its name is the transformation: `tile`, `block_x`,
    `pad`, `kind` ...), or, across strategies (`kind` differs), the same-shaped variants of the
    other strategy. Each as (transformation, sample)."""
    here = sample.params
    out: list[tuple[str, Sample]] = []
    for s in task.candidates:
        if s.sample_id == sample.sample_id:
            continue
        there = s.params
        keys = set(here) | set(there)
        diff = [k for k in keys if here.get(k) != there.get(k)]
        if len(diff) == 1:
            out.append((f"{diff[0]}={there.get(diff[0])}", s))
        elif "kind" in diff and all(k not in here or k not in there for k in diff if k != "kind"):
            # a strategy switch that keeps every parameter both strategies have
            out.append((f"kind={there.get('kind')}", s))
    return out


def _family_tasks() -> dict[str, Task]:
    from corpus.families import families

    out: dict[str, Task] = {}
    for name, module in families().items():
        by_task: dict[str, list[Sample]] = {}
        for s in module.samples():
            by_task.setdefault(s.task_id, []).append(s)
        for task_id, samples in by_task.items():
            base = next((s for s in samples if s.baseline), None)
            if base is None:
                continue
            seen: set[str] = set()
            uniq = [s for s in samples if not (s.sample_id in seen or seen.add(s.sample_id))]
            out[task_id] = Task(task_id, "family", base, tuple(uniq),
                                description=getattr(module, "DESCRIPTION", ""))
    return out


@lru_cache(maxsize=1)
def family_tasks() -> dict[str, Task]:
    """task id -> Task for every corpus family at every size (cached: expanding the grids takes ~1 s)."""
    return _family_tasks()


_KINDS: dict[str, Callable[[], dict[str, Task]]] = {"family": family_tasks}


def register_kind(kind: str, loader: Callable[[], dict[str, Task]]) -> None:
    """Make another kind of task visible to `get` and `all_tasks` (loader: id -> Task, cached by its owner)."""
    _KINDS[kind] = loader


def all_tasks(kinds: Iterable[str] | None = None) -> dict[str, Task]:
    out: dict[str, Task] = {}
    for kind, load in _KINDS.items():
        if kinds is None or kind in kinds:
            out.update(load())
    return out


def get(task_id: str) -> Task:
    kind = task_id.split("/", 1)[0]
    # ids of other kinds start with the kind ("c/jacobi2d/small", "torch/relu/small"): load only that one
    loaders = [_KINDS[kind]] if kind in _KINDS and kind != "family" else list(_KINDS.values())
    for load in loaders:
        tasks = load()
        if task_id in tasks:
            return tasks[task_id]
    known = sorted(all_tasks([kind] if kind in _KINDS and kind != "family" else None))
    hint = ", ".join(t for t in known if t.split("/")[0] == task_id.split("/")[0])[:200] or ", ".join(known[:8])
    raise UnknownTask(f"unknown task {task_id!r} (known: {hint}{' ...' if len(known) > 8 else ''})")


def task_samples(kinds: Iterable[str] = ("c", "torch")) -> list[Sample]:
    """Every known candidate of every task of these kinds, each once (for training the surrogate
    on their measured rows: `python -m rewardmodel train --extra-samples rl.tasks:task_samples`)."""
    seen: set[str] = set()
    out = []
    for _, t in sorted(all_tasks(list(kinds)).items()):
        for s in t.candidates:
            if s.sample_id not in seen:
                seen.add(s.sample_id)
                out.append(s)
    return out


def c_task_samples() -> list[Sample]:
    return task_samples(("c",))


def torch_task_samples() -> list[Sample]:
    return task_samples(("torch",))


# Other kinds register themselves here; their modules import Task from this one.
from . import c_kind as _c_kind  # noqa: E402
from . import torch_kind as _torch_kind  # noqa: E402

register_kind("c", _c_kind.loader)
register_kind("torch", _torch_kind.loader)
