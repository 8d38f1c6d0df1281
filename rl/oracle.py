"""Oracles: real answers for candidate kernels, behind one interface (`rl.records.Oracle`).

Three ways to get a real answer, from cheapest to most general:

- `Replay`: the measured corpus (every H200 run in `corpus/data`). Costs no GPU time at all;
  each answer carries the compile and run seconds the original run recorded, so a budget
  study on a CPU charges what the GPU once paid. It only knows what was measured: any other
  candidate is refused with `NotMeasured`. Use it on CPU machines, in tests and benchmarks.
- `LocalGPU`: the analyzer's profiler on this machine's GPU. Costs what it records: NVRTC
  compile seconds (0 when a build was already done) plus the GPU worker's run seconds
  (load, correctness check, timing). Use it on one GPU.
- `RayPool` (in `rl.ray_pool`): one `LocalGPU` per GPU in Ray actors, on this host or a
  cluster. Same costs per answer, spread over the GPUs. Use it on several GPUs.

`make_oracle(name, **options)` builds one from a config ("replay", "gpu" or "ray").
Every `measure` answers every sample in order; a failed run is an answer with its status.
"""
from __future__ import annotations

import inspect
import math
import os
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from corpus.families.base import Sample

from .records import NotMeasured, RealAnswer

if TYPE_CHECKING:
    from analyzer.profile import Measurement, Settings

__all__ = ["Replay", "LocalGPU", "RayPool", "make_oracle", "answer_from", "DEFAULT_GPU"]

DEFAULT_GPU = "NVIDIA H200"


def _num(value: Any) -> float | None:
    """A float, or None for a missing or NaN value (pandas and the profiler write NaN)."""
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def _seconds(value: Any) -> float:
    v = _num(value)
    return v if v is not None else 0.0


# --------------------------------------------------------------------------- Replay
class Replay:
    """Answers from the measured corpus: the main-pass row of each sample on one GPU.

    Loads the store once (about a quarter of a second); every lookup is a dict access. The
    noise pass (a second measurement of some samples) is ignored, so an answer is always the
    row the corpus statistics and the surrogate were built from.

    Cost: the row's recorded `compile_s` and `run_s`. For a row whose cubin came from the
    build cache, the profiler records the original compile time, so the cost is what a fresh
    machine would pay.

    data_dirs: folders of parquet part files (default: the store's `corpus/data`).
    frame: an already-loaded store frame (as `corpus.store.read()` returns) instead.
    """

    name = "replay"

    def __init__(self, data_dirs: Iterable[str | os.PathLike] | None = None, gpu: str = DEFAULT_GPU,
                 frame: Any = None) -> None:
        self.gpu = gpu
        if frame is None:
            try:
                from corpus import store
            except ImportError as exc:  # pandas / pyarrow are the corpus extra
                raise RuntimeError(f"the replay oracle reads the corpus store: pip install cudaperf[corpus] ({exc})") from None
            frame = store.read(list(data_dirs)) if data_dirs is not None else store.read()
        self._answers = self._index(frame, gpu)

    @staticmethod
    def _index(df: Any, gpu: str) -> dict[str, RealAnswer]:
        need = ("sample_id", "gpu", "pass", "status", "message", "time_ms", "compile_s", "run_s")
        missing = [c for c in need if c not in df.columns]
        if missing:
            raise ValueError(f"not a corpus store frame: missing column(s) {', '.join(missing)}")
        if not len(df):
            raise ValueError("no measured rows: the corpus store is empty")
        rows = df[(df["gpu"] == gpu) & (df["pass"] == "main")]
        if not len(rows):
            gpus = sorted({str(g) for g in df["gpu"].dropna().unique()})
            raise ValueError(f"no measured rows for GPU {gpu!r} (GPUs with data: {', '.join(gpus) or 'none'})")
        if "date" in rows.columns:  # a retried sample: the newest row wins, as in store.read
            rows = rows.sort_values("date", kind="stable")
        out: dict[str, RealAnswer] = {}
        for sid, status, message, t, c, r in zip(rows["sample_id"], rows["status"], rows["message"],
                                                 rows["time_ms"], rows["compile_s"], rows["run_s"]):
            out[str(sid)] = RealAnswer(str(sid), str(status), _num(t) if status == "ok" else None,
                                       "" if message is None or message != message else str(message),
                                       _seconds(c), _seconds(r), origin="replay")
        return out

    def has(self, sample: Sample | str) -> bool:
        """Whether a real run measured this candidate (a Sample or a sample id) on this GPU."""
        sid = sample if isinstance(sample, str) else sample.sample_id
        return sid in self._answers

    def known_ids(self) -> frozenset[str]:
        """Every sample id this oracle can answer for."""
        return frozenset(self._answers)

    def __len__(self) -> int:
        return len(self._answers)

    def measure(self, samples: Sequence[Sample]) -> list[RealAnswer]:
        """The stored answer of each sample, in order; `NotMeasured` if any was never measured
        (nothing is answered then: the caller decides what to do with the rest)."""
        out: list[RealAnswer] = []
        missing: list[Sample] = []
        for s in samples:
            a = self._answers.get(s.sample_id)
            if a is None:
                missing.append(s)
            else:
                out.append(a)
        if missing:
            s = missing[0]
            more = f" (and {len(missing) - 1} more in this batch)" if len(missing) > 1 else ""
            raise NotMeasured(f"{s.task_id}: variant {s.variant!r} (sample {s.sample_id}) was never measured "
                              f"on {self.gpu}; replay answers only measured candidates{more}")
        return out

    def close(self) -> None:
        pass


# --------------------------------------------------------------------------- LocalGPU
def answer_from(m: "Measurement", origin: str, compile_s: float | None = None) -> RealAnswer:
    """A RealAnswer from a profiler Measurement (NaN fields become None / 0)."""
    t = _num(m.time_ms) if m.status == "ok" else None
    return RealAnswer(m.job_id, m.status, t, m.message or "",
                      _seconds(m.compile_s) if compile_s is None else compile_s, _seconds(m.run_s), origin=origin)


class LocalGPU:
    """The analyzer's profiler on this machine's GPU, kept open across calls.

    The profiler (CPU build pools, the GPU worker process, prepared inputs) starts on the first
    `measure` and lives until `close`, so later batches reuse its compiled cubins and uploaded
    problems. Samples sharing a problem are measured together whatever their order in the batch.

    Cost of an answer: the NVRTC seconds spent compiling its source in this call (0 when the
    on-disk cache or an earlier call of this oracle already built it) plus the GPU worker's
    seconds for that sample (load, correctness check, timing). A compile error, a wrong
    result, a crash or a hang is an answer with that status, costing only that sample.

    settings: `analyzer.profile.Settings`; without it, `Settings(timeout_s=timeout_s)` (per-sample limit).
    counters: also collect ncu hardware counters (slow); they are kept in `last_measurements`.
    """

    name = "gpu"

    def __init__(self, settings: "Settings | None" = None, timeout_s: float = 30.0, counters: bool = False,
                 log: Any = None) -> None:
        self.settings = settings
        self.timeout_s = timeout_s
        self.counters = counters
        self.log = log
        self.last_measurements: dict[str, Measurement] = {}
        self._profiler: Any = None
        self._built: set[tuple[str, str]] = set()   # (source hash, kernel) compiled by this oracle

    def _open(self) -> Any:
        if self._profiler is None:
            from analyzer.profile import Profiler, Settings, toolkit

            if not toolkit.has_gpu():
                raise RuntimeError("no CUDA GPU: nvidia-smi finds none on this machine (use the replay oracle on a CPU)")
            if not toolkit.have_nvrtc():
                raise RuntimeError("no NVRTC: pip install cudaperf[nvrtc]")
            self._profiler = Profiler(self.settings or Settings(timeout_s=self.timeout_s), log=self.log)
        return self._profiler

    def measure(self, samples: Sequence[Sample]) -> list[RealAnswer]:
        samples = list(samples)
        if not samples:
            return []
        from analyzer.profile import Job
        from analyzer.profile.worker import WorkerUnavailable

        prof = self._open()
        first: dict[str, Sample] = {}
        for s in samples:           # a sample asked twice in one batch is measured once
            first.setdefault(s.sample_id, s)
        try:
            got = {m.job_id: m for m in prof.run([Job.like(s) for s in first.values()], counters=self.counters)}
        except WorkerUnavailable as exc:
            self.close()
            raise RuntimeError(f"no usable CUDA GPU: {exc}") from None
        self.last_measurements = got
        charged: dict[str, RealAnswer] = {}
        for sid, s in first.items():
            m = got[sid]
            key = (s.source_hash, s.kernel)
            # the builder reports the first compile's seconds again on a cache hit: charge a build once
            compile_s = 0.0 if (m.cached or key in self._built) else _seconds(m.compile_s)
            self._built.add(key)
            charged[sid] = answer_from(m, self.name, compile_s)
        return [charged[s.sample_id] for s in samples]

    def close(self) -> None:
        if self._profiler is not None:
            self._profiler.close()
            self._profiler = None


# --------------------------------------------------------------------------- factory
def __getattr__(name: str) -> Any:
    # RayPool lives in rl.ray_pool; loaded on first use so `import rl.oracle` never pulls Ray in
    if name == "RayPool":
        from .ray_pool import RayPool

        return RayPool
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_KINDS = ("replay", "gpu", "ray")


def make_oracle(name: str, **options: Any):
    """An oracle by config name: "replay" (Replay), "gpu" (LocalGPU) or "ray" (RayPool)."""
    key = str(name).strip().lower()
    if key == "replay":
        cls: Any = Replay
    elif key in ("gpu", "local", "localgpu"):
        cls = LocalGPU
    elif key == "ray":
        from .ray_pool import RayPool as cls
    else:
        raise ValueError(f"unknown oracle {name!r} (known: {', '.join(_KINDS)})")
    try:  # a misspelt option in a config file: one line naming it, before anything starts
        inspect.signature(cls).bind(**options)
    except TypeError as exc:
        raise ValueError(f"oracle {key!r}: {exc}") from None
    return cls(**options)
