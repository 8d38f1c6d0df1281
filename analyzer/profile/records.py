"""What goes into the profiler (Job) and what comes out (Measurement)."""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from typing import Any

from .spec import Arg, Buffer, Dim3

# Every way a sample can end. Anything but "ok" costs that sample only.
STATUSES = ("ok", "compile_error", "wrong_result", "launch_error", "crash", "timeout", "input_error")

NAN = math.nan


@dataclass(frozen=True)
class Job:
    """One launch to build, check and time: the fields of a corpus Sample the profiler needs."""

    id: str
    source: str
    kernel: str                 # extern "C" name or a template name expression
    grid: Dim3
    block: Dim3
    args: tuple[Arg, ...]
    problem: str                # "module:function" returning a spec.Problem
    problem_kwargs: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    smem: int = 0
    atol: float = 1e-4
    rtol: float = 1e-4

    @classmethod
    def like(cls, record: Any, id: str | None = None) -> "Job":
        """A Job from any record with the same field names (a corpus Sample, say)."""
        return cls(
            id=id if id is not None else record.sample_id,
            source=record.source, kernel=record.kernel,
            grid=tuple(record.grid), block=tuple(record.block), args=tuple(record.args),
            problem=record.problem, problem_kwargs=dict(record.problem_kwargs),
            smem=int(record.smem), atol=float(record.atol), rtol=float(record.rtol),
        )

    @property
    def problem_key(self) -> str:
        """Jobs with the same key share inputs and expected outputs (built once)."""
        return problem_key(self.problem, self.problem_kwargs)

    @property
    def buffers(self) -> list[Buffer]:
        return [a for a in self.args if isinstance(a, Buffer)]


def problem_key(path: str, kwargs: dict[str, Any]) -> str:
    text = path + "|" + json.dumps(kwargs, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Measurement:
    """The outcome of one Job. Times are milliseconds; NaN where not measured."""

    job_id: str
    status: str
    message: str = ""
    time_ms: float = NAN        # median over reps
    p10_ms: float = NAN
    p90_ms: float = NAN
    mean_ms: float = NAN
    reps: int = 0
    compile_s: float = NAN      # NVRTC wall time (0 when the cubin came from the cache)
    cached: bool = False        # cubin came from the on-disk cache
    run_s: float = NAN          # worker wall time for this sample (load, check, time)
    max_abs_err: float = NAN
    max_rel_err: float = NAN
    frac_wrong: float = NAN
    registers: int = -1         # from the driver (cuFuncGetAttribute); -1 unknown
    local_bytes: int = -1       # per-thread local memory (spills, stack arrays)
    static_smem: int = -1
    spill_stores: int = -1      # from the ptxas log
    spill_loads: int = -1
    stack_bytes: int = -1
    log: str = ""               # compiler log (full for compile errors)
    counters: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def one_line(text: str, limit: int = 300) -> str:
    """The first informative line of a message, trimmed, for tables and the store."""
    lines = [ln.strip() for ln in str(text).splitlines() if ln.strip()]
    # NVRTC logs start with the file name; prefer the first line that says 'error'.
    errors = [ln for ln in lines if "error" in ln.lower()]
    line = (errors or lines or [""])[0]
    return line if len(line) <= limit else line[: limit - 3] + "..."
