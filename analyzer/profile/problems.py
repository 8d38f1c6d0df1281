"""Problems (inputs + expected outputs) built once per (path, kwargs), kept on disk.

A builder process calls the family's problem function and writes each array as
.npy; the GPU worker memory-maps them. This keeps gigabytes out of pipes, lets
the next problem be built on a CPU core while the GPU measures the current one,
and lets a restarted worker reload a problem without rebuilding it.
"""
from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .spec import Buffer, Problem, bf16_to_f32, resolve

_META = "meta.json"


@dataclass(frozen=True)
class PreparedProblem:
    key: str
    dir: str
    error: str = ""             # one line; set when the problem function failed
    build_s: float = 0.0


def _numpy_dtype(dtype: str) -> np.dtype:
    return np.dtype(np.uint16) if dtype == "bfloat16" else np.dtype(dtype)


def prepare(path: str, kwargs: dict[str, Any], key: str, root: str) -> PreparedProblem:
    """Build the problem and write it under root/key. Runs in a builder process."""
    out = Path(root) / key
    if (out / _META).is_file():
        meta = json.loads((out / _META).read_text())
        return PreparedProblem(key, str(out), meta.get("error", ""), 0.0)
    tmp = Path(root) / f".{key}.{os.getpid()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    start = time.perf_counter()
    error = ""
    try:
        problem = resolve(path)(**kwargs)
        if not isinstance(problem, Problem):
            raise TypeError(f"{path} returned {type(problem).__name__}, not Problem")
        for kind, arrays in (("in", problem.inputs), ("exp", problem.expected)):
            for name, arr in arrays.items():
                np.save(tmp / f"{kind}__{name}.npy", np.ascontiguousarray(arr))
    except Exception as exc:  # the family's bug: costs its samples only
        error = f"problem {path}({kwargs}) failed: {type(exc).__name__}: {exc}".splitlines()[0][:400]
        for f in tmp.glob("*.npy"):
            f.unlink()
    seconds = time.perf_counter() - start
    (tmp / _META).write_text(json.dumps({"error": error, "build_s": seconds}))
    try:
        os.replace(tmp, out)
    except OSError:  # another process finished it first
        shutil.rmtree(tmp, ignore_errors=True)
    return PreparedProblem(key, str(out), error, seconds)


def load(dir: str, kind: str, name: str) -> np.ndarray | None:
    """A memory-mapped array ('in' or 'exp'), or None if the problem lacks it."""
    f = Path(dir) / f"{kind}__{name}.npy"
    return np.load(f, mmap_mode="r") if f.is_file() else None


def validate(dir: str, buffers: list[Buffer]) -> str:
    """'' when the problem's arrays fit the buffers, else a one-line reason (input_error)."""
    for buf in buffers:
        want = _numpy_dtype(buf.dtype)
        checks = []
        if buf.role in ("in", "inout"):
            checks.append(("in", "input"))
        if buf.role in ("out", "inout", "zero"):
            checks.append(("exp", "expected output"))
        for kind, what in checks:
            arr = load(dir, kind, buf.name)
            if arr is None:
                return f"problem has no {what} for buffer {buf.name!r}"
            if arr.dtype != want:
                return f"{what} {buf.name!r} is {arr.dtype}, buffer wants {buf.dtype}"
            if arr.ndim != 1 or arr.size != buf.size:
                return f"{what} {buf.name!r} has shape {arr.shape}, buffer wants ({buf.size},)"
    return ""


def as_float64(arr: np.ndarray, dtype: str) -> np.ndarray:
    """Host-side view of a buffer's values for error reports (bf16 bits decoded)."""
    if dtype == "bfloat16":
        return bf16_to_f32(arr).astype(np.float64)
    return np.asarray(arr).astype(np.float64)
