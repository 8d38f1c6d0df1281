"""What a GPU run found for a whole-module candidate, replayed where there is no GPU.

`python -m rl.measure_modules` evaluates host wrappers (`c` tasks) and load_inline modules
(`torch` tasks) on a GPU and stores one row per (style, task, exact source text). On a machine
without a GPU, `python -m rl evaluate` answers a module measured before from that row, as
`rl.oracle.Replay` does for kernel candidates: the gate the run failed, or the measured time
(and for torch the eager and torch.compile times of the same process). A module whose text
differs by one byte was never measured and stays a static evaluation.
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

WRAPPER = "host_wrapper"
INLINE = "load_inline"


def module_sample_id(style: str, task_id: str, text: str) -> str:
    """The store's key of one module at one task (size): the same text is the same candidate."""
    return hashlib.sha256(f"{style}|{task_id}|{text}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class StoredRun:
    status: str                     # ok | wrong_result | gate_<name> | not_timed | ...
    message: str
    time_ms: float | None
    gpu: str
    run_id: str
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def failed_gate(self) -> str | None:
        """The gate the GPU run failed (`correct` for a wrong result), None when it passed them all."""
        if self.status.startswith("gate_"):
            return self.status[len("gate_"):]
        return None if self.status in ("ok", "not_timed") else "correct"

    def apply_gates(self, gates: dict) -> bool:
        """Write the run's verdicts into an evaluation's `gates` (name -> Gate): the gate it failed,
        or `builds` and `correct`. True when the run got as far as the correctness check."""
        from rewardmodel.reward import Gate

        failed = self.failed_gate
        if failed and failed not in ("builds", "correct"):
            if gates.get(failed, Gate(None)).passed is not False:
                gates[failed] = Gate(False, self.message or self.status)
            return False
        gates["builds"] = Gate(failed != "builds", self.message if failed == "builds" else "built on the GPU")
        gates["correct"] = Gate(failed is None, self.message if failed else "3 seeds on the GPU")
        return True

    @property
    def where(self) -> str:
        return f"replayed from the {self.gpu} run {self.run_id} (corpus/data)"


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


@lru_cache(maxsize=1)
def store_frame():
    """The corpus store (`corpus.store.read()`), read once per process for every replay here;
    None without the corpus extra (pandas, pyarrow)."""
    try:
        from corpus import store
    except ImportError:
        return None
    return store.read()


@lru_cache(maxsize=4)
def _runs(gpu: str) -> dict[str, StoredRun]:
    df = store_frame()
    if df is None or not len(df) or "style" not in df.columns:    # no corpus extra, or no module rows
        return {}
    df = df[(df["gpu"] == gpu) & (df["pass"] == "main") & df["style"].isin([WRAPPER, INLINE])]
    out = {}
    for sid, status, message, t, run_id, params in zip(df["sample_id"], df["status"], df["message"],
                                                       df["time_ms"], df["run_id"], df["params"]):
        try:
            p = json.loads(params) if isinstance(params, str) else {}
        except ValueError:
            p = {}
        out[str(sid)] = StoredRun(str(status), "" if not isinstance(message, str) else message,
                                  _num(t) if status == "ok" else None, gpu, str(run_id), p)
    return out


def stored_run(style: str, task_id: str, text: str, gpu: str | None = None) -> StoredRun | None:
    """The stored GPU run of this exact module at this task, or None."""
    if gpu is None:
        from rl.oracle import DEFAULT_GPU

        gpu = DEFAULT_GPU
    return _runs(gpu).get(module_sample_id(style, task_id, text))
