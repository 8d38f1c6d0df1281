"""Host-wrapper candidates for `c` tasks: kernels plus a host function with the C reference's signature.

A `c` task's candidate is usually one kernel plus a `// launch:` line (rl.submission). A host
wrapper is the other form RL models write: a .cu file whose host function, named and typed as
the C reference function (`extern "C" void gemm(int m, int n, int k, const float* a, ...)`),
receives device pointers and launches one or more kernels (`<<<...>>>`, default stream),
e.g. a two-pass reduction or a multi-kernel scan.

`evaluate_wrapper(task, path)`:
- static, anywhere: the host function is found and bound to the task's sizes, every launch it
  makes is computed (grid, block, shared memory, the kernels' scalar arguments; the walker of
  rl.tasks.torch_static, which follows the wrapper's integer arithmetic and the host functions it
  calls), gates (it defines the function, launches its own kernels, no library calls, no timers
  or streams), and per launch the reward's structural terms and the surrogate's time; the
  candidate's prediction is the sum over launches;
- on a GPU: built with nvcc into a shared library (cached by source hash), called through ctypes
  on device buffers holding the task's seeded inputs, checked against the C reference's outputs on
  3 seeds, and timed with CUDA events around the whole call (launch overhead of every kernel
  included), median of `reps`.
A wrapper that faults the GPU loses the process' CUDA context: evaluate untrusted ones one per
process (`python -m rl evaluate` is one).
"""
from __future__ import annotations

import ctypes
import dataclasses
import hashlib
import os
import shutil
import statistics
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from analyzer.profile.spec import Buffer
from rewardmodel.reward import Gate, RewardConfig
from rl.records import GatedRecord

__all__ = ["LaunchRow", "WrapperEvaluation", "is_wrapper", "bind_wrapper", "evaluate_wrapper", "render_text",
           "build_library", "WrapperBuildError"]

_CTYPES = {"float32": ctypes.c_float, "float64": ctypes.c_double, "int32": ctypes.c_int, "uint32": ctypes.c_uint,
           "int64": ctypes.c_longlong, "uint8": ctypes.c_ubyte, "int8": ctypes.c_byte}


class WrapperBuildError(RuntimeError):
    """nvcc could not build the wrapper (the message is its first error line)."""


@dataclass
class LaunchRow:
    kernel: str
    where: str                                   # path:line:col of the `<<<` site
    grid: tuple[int, int, int] | None
    block: tuple[int, int, int] | None
    smem: int | None
    args: dict[str, float]
    in_loop: bool = False
    predicted_ms: float | None = None
    terms: dict[str, float | None] = field(default_factory=dict)
    unresolved: list[str] = field(default_factory=list)
    launch_problem: str = ""                     # why this launch fails, where known without running it


@dataclass
class WrapperEvaluation(GatedRecord):
    task: str
    candidate: str
    device: str
    gates: dict[str, Gate] = field(default_factory=dict)
    launches: list[LaunchRow] = field(default_factory=list)
    predicted_ms: float | None = None
    measured_ms: float | None = None
    baseline_ms: float | None = None             # the naive port's stored H200 time, when known
    c_reference_ms: float | None = None
    max_abs_err: float | None = None
    findings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _spec(task: Any):
    from .c_kind import spec_of

    return spec_of(task.baseline.problem_kwargs["task"])


def is_wrapper(task: Any, source: str) -> bool:
    """The source defines a host function named as the task's C function and launches from host code."""
    if getattr(task, "kind", None) != "c" or "<<<" not in source:
        return False
    from .torch_static import CudaUnit

    return CudaUnit.of(0, source).host_function(_spec(task).function) is not None


def bind_wrapper(task: Any, source: str, path: str = "<wrapper>"):
    """The CallBinding of the task's C function in `source`, called with the task's sizes."""
    from .torch_static import CudaUnit, TensorInfo, bind_call

    args = [TensorInfo((a.size,), a.dtype) if isinstance(a, Buffer) else a.value for a in task.baseline.args]
    return bind_call([CudaUnit.of(0, source, path)], _spec(task).function, args)


def _static(ev: WrapperEvaluation, task: Any, source: str, path: str, model: Any, config: RewardConfig) -> list[str]:
    """Fills the static gates, launches and findings; returns why the wrapper cannot build, where
    that is known without a compiler (rewardmodel.reward.build_problems)."""
    from analyzer.rules.occupancy import opts_in
    from rewardmodel.features import context_of
    from rewardmodel.reward import build_problems, launch_problem, nvcc_constexpr_problems, reward

    from .torch_eval import library_calls, timer_calls

    fn = _spec(task).function
    binding = bind_wrapper(task, source, path)
    ev.notes.extend(binding.notes)
    ev.gates["defines_function"] = Gate(binding.found, f"host function {fn}" if binding.found else
                                        f"no host function {fn}(...) with the C reference's parameters")
    if not binding.found:
        return []
    kernels = sorted({l.kernel for l in binding.launches})
    ev.gates["launches_own_kernel"] = Gate(bool(binding.launches), ", ".join(kernels) if kernels else
                                           f"{fn} launches no kernel")
    lib = library_calls([source])
    ev.gates["no_library_call"] = Gate(False, "calls " + ", ".join(lib)) if lib else Gate(True)
    timers = timer_calls([source])
    ev.gates["no_timers"] = Gate(False, "touches " + ", ".join(timers)) if timers else Gate(True)
    cfg = dataclasses.replace(config, compile=False)    # NVRTC cannot compile host code; nvcc builds it on a GPU
    seen_findings: set[str] = set()
    unbuildable: list[str] = []
    opted_in = opts_in(source.encode("utf-8", "replace"))
    for l in binding.launches:
        row = LaunchRow(l.kernel, f"{path}:{l.line}:{l.col}", l.grid, l.block, l.smem, dict(l.args), l.in_loop,
                        unresolved=list(l.unresolved))
        if l.resolved:
            # problem=None: each launch's traffic from the analyzer's own access counts (the task's
            # bytes belong to the whole call, not to e.g. a final pass over partial sums)
            br, feat, _ = reward(source, l.kernel, grid=l.grid, block=l.block, smem=l.smem or 0, args=l.args,
                                 problem=None, model=model, config=cfg, path=path, harness="nvcc")
            if feat is not None:
                ctx = context_of(feat.lint, l.kernel)
                # built by plain nvcc (build_library): no --expt-relaxed-constexpr
                for p in build_problems(feat.lint) + nvcc_constexpr_problems(ctx.program):
                    if p not in unbuildable:
                        unbuildable.append(p)
                row.launch_problem = launch_problem(ctx, l.kernel, opted_in)
            row.predicted_ms = br.time_ms
            row.terms = {k: t.value for k, t in br.terms.items()}
            for f in br.findings:
                if f not in seen_findings:
                    seen_findings.add(f)
                    ev.findings.append(f)
        ev.launches.append(row)
    preds = [r.predicted_ms for r in ev.launches]
    if preds and all(p is not None for p in preds):
        ev.predicted_ms = float(sum(preds))
        if any(r.in_loop for r in ev.launches):
            ev.notes.append("a launch sits in a host loop: the prediction counts it once")
    return unbuildable


# ------------------------------------------------------------------ the GPU half

def _cache() -> Path:
    from analyzer.cache import cache_root

    return cache_root() / "wrappers"


def build_library(source: str, arch: str = "sm_90", timeout: float = 300.0) -> Path:
    """nvcc -O3 -shared: the wrapper as a shared library, cached by the source's hash."""
    key = hashlib.sha256(f"{arch}|{source}".encode()).hexdigest()[:16]
    out = _cache() / f"{key}.so"
    if out.is_file():
        return out
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise WrapperBuildError("no nvcc on the PATH: a host wrapper needs the CUDA toolkit to build")
    out.parent.mkdir(parents=True, exist_ok=True)
    src = out.with_suffix(".cu")
    src.write_text(source)
    tmp = out.with_suffix(f".{os.getpid()}.tmp.so")
    proc = subprocess.run([nvcc, "-O3", f"-arch={arch}", "-shared", "-Xcompiler", "-fPIC", "-o", str(tmp), str(src)],
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        log = proc.stderr + proc.stdout
        first = next((ln for ln in log.splitlines() if "error" in ln.lower()), log.strip()[:200])
        raise WrapperBuildError(f"nvcc failed: {first.strip()}")
    tmp.replace(out)
    return out


def _check(rt, err, what: str) -> None:
    code = err[0] if isinstance(err, tuple) else err
    if int(code) != 0:
        raise RuntimeError(f"{what}: {rt.cudaGetErrorString(code)[1].decode()}")


class _Buffers:
    """Device buffers of the task's arguments (cuda-python runtime API)."""

    def __init__(self, rt, args) -> None:
        import numpy as np

        self.rt, self.args, self.ptr = rt, args, {}
        for a in args:
            if isinstance(a, Buffer):
                nbytes = a.size * np.dtype(a.dtype).itemsize
                err, p = rt.cudaMalloc(nbytes)
                _check(rt, err, f"cudaMalloc {a.name}")
                self.ptr[a.name] = (p, nbytes)

    def load(self, problem) -> None:
        import numpy as np

        rt = self.rt
        for a in self.args:
            if not isinstance(a, Buffer):
                continue
            p, nbytes = self.ptr[a.name]
            if a.name in problem.inputs:
                host = np.ascontiguousarray(problem.inputs[a.name])
                _check(rt, rt.cudaMemcpy(p, host.ctypes.data, nbytes, rt.cudaMemcpyKind.cudaMemcpyHostToDevice),
                       f"copy {a.name}")
            else:   # outputs: poisoned (0xFF: NaN for floats), zeroed for "zero" buffers
                _check(rt, rt.cudaMemset(p, 0 if a.role == "zero" else 0xFF, nbytes), f"clear {a.name}")

    def read(self, name: str, dtype: str, size: int):
        import numpy as np

        out = np.empty(size, dtype=dtype)
        p, nbytes = self.ptr[name]
        _check(self.rt, self.rt.cudaMemcpy(out.ctypes.data, p, nbytes, self.rt.cudaMemcpyKind.cudaMemcpyDeviceToHost),
               f"read {name}")
        return out

    def values(self) -> list:
        out = []
        for a in self.args:
            if isinstance(a, Buffer):
                out.append(ctypes.c_void_p(int(self.ptr[a.name][0])))
            else:
                out.append(_CTYPES[a.dtype](a.value))
        return out

    def free(self) -> None:
        for p, _ in self.ptr.values():
            self.rt.cudaFree(p)


def _run(ev: WrapperEvaluation, task: Any, so: Path, seeds: tuple[int, ...], warmup: int, reps: int) -> None:
    import numpy as np
    from cuda.bindings import runtime as rt

    from corpus.families.base import build_problem

    base = task.baseline
    fn = getattr(ctypes.CDLL(str(so)), _spec(task).function)
    fn.restype = None
    bufs = _Buffers(rt, base.args)
    try:
        worst = 0.0
        for seed in seeds:
            kw = dict(base.problem_kwargs, seed=int(base.problem_kwargs.get("seed", 0)) + seed)
            prob = build_problem(_with_kwargs(base, kw))
            bufs.load(prob)
            fn(*bufs.values())
            _check(rt, rt.cudaDeviceSynchronize(), "the wrapper's kernels")
            _check(rt, rt.cudaGetLastError(), "the wrapper's launches")
            for name, want in prob.expected.items():
                a = next(x for x in base.args if x.name == name)
                got = bufs.read(name, a.dtype, a.size)
                want = np.asarray(want).reshape(-1)
                if a.dtype.startswith(("int", "uint")):
                    ok = np.array_equal(got, want)
                    err = float(np.max(np.abs(got.astype(np.int64) - want.astype(np.int64)))) if got.size else 0.0
                else:
                    diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
                    ok = bool(np.all(diff <= base.atol + base.rtol * np.abs(want.astype(np.float64))))
                    err = float(np.nanmax(diff)) if np.isfinite(diff).all() else float("inf")
                worst = max(worst, err)
                if not ok:
                    ev.max_abs_err = err
                    ev.gates["correct"] = Gate(False, f"seed {seed}: {name} differs from the C reference "
                                                      f"(max |diff| {err:.3g})")
                    return
        ev.max_abs_err = worst
        ev.gates["correct"] = Gate(True, f"{len(seeds)} seeds, max |diff| {worst:.3g}")
        times = []
        _, start = rt.cudaEventCreate()
        _, stop = rt.cudaEventCreate()
        args = bufs.values()
        for i in range(warmup + reps):
            rt.cudaEventRecord(start, 0)
            fn(*args)
            rt.cudaEventRecord(stop, 0)
            _check(rt, rt.cudaEventSynchronize(stop), "timing")
            if i >= warmup:
                times.append(rt.cudaEventElapsedTime(start, stop)[1])
        rt.cudaEventDestroy(start)
        rt.cudaEventDestroy(stop)
        ev.measured_ms = float(statistics.median(times))
    finally:
        bufs.free()


def _with_kwargs(sample, kwargs):
    return dataclasses.replace(sample, problem_kwargs=kwargs)


@lru_cache(maxsize=1)
def _replay():
    """The stored H200 answers (the store read once per process, shared with the module replay)."""
    from rl.oracle import Replay

    from .module_replay import store_frame

    return Replay(frame=store_frame())


def _stored_baseline_ms(task: Any) -> float | None:
    r = _replay()
    if not r.has(task.baseline):
        return None
    a = r.measure([task.baseline])[0]
    return a.time_ms if a.ok else None


def _replayed(ev: WrapperEvaluation, stored) -> None:
    """The stored GPU run of this exact wrapper: its failed gate, or its time (rl.tasks.module_replay)."""
    ev.device = f"cpu, {stored.where}"
    if not stored.apply_gates(ev.gates):
        return
    ev.measured_ms = stored.time_ms
    ev.c_reference_ms = stored.params.get("c_reference_ms") if ev.measured_ms is not None else None


def evaluate_wrapper(task: Any, path: str | Path, device: str = "cuda", *, model: Any = None, seeds=(0, 1, 2),
                     warmup: int = 3, reps: int = 20, config: RewardConfig | None = None,
                     replay: bool = False) -> WrapperEvaluation:
    """Gates, launches, prediction; on a GPU also build, correctness and time (module docstring).
    replay: where nothing runs, answer build, correctness and time from this exact wrapper's stored
    GPU run when there is one (rl.tasks.module_replay)."""
    from analyzer.profile import toolkit

    config = config or RewardConfig()
    path = Path(path)
    source = path.read_text(encoding="utf-8")
    run = str(device).startswith("cuda") and toolkit.has_gpu()
    ev = WrapperEvaluation(task.id, str(path), device if run else "cpu")
    unbuildable = _static(ev, task, source, str(path), model, config)
    ev.baseline_ms = _stored_baseline_ms(task)
    if not run:
        from .module_replay import WRAPPER, stored_run

        stored = stored_run(WRAPPER, task.id, source) if replay and not ev.failed_gate else None
        cannot_launch = [f"{r.where}: {r.launch_problem}" for r in ev.launches if r.launch_problem]
        if stored is None and unbuildable:     # known without a compiler
            ev.gates["builds"] = Gate(False, "; ".join(unbuildable))
            ev.gates["correct"] = Gate(None, "not run: it cannot build")
        elif stored is None and cannot_launch:     # known without a GPU
            ev.gates["builds"] = Gate(None, "not checked: no GPU")
            ev.gates["launch"] = Gate(False, "; ".join(cannot_launch))
            ev.gates["correct"] = Gate(None, "not run: a launch fails")
        elif stored is None:
            ev.gates["builds"] = Gate(None, "not checked: no GPU")
            ev.gates["correct"] = Gate(None, "not checked: no GPU")
        else:
            _replayed(ev, stored)
        return ev
    if ev.failed_gate:
        ev.gates["correct"] = Gate(None, f"not run: gate {ev.failed_gate} failed")
        return ev
    try:
        so = build_library(source)
    except (WrapperBuildError, subprocess.TimeoutExpired) as exc:
        ev.gates["builds"] = Gate(False, str(exc).splitlines()[0])
        return ev
    ev.gates["builds"] = Gate(True, so.name)
    try:
        _run(ev, task, so, tuple(seeds), warmup, reps)
    except (RuntimeError, OSError, AttributeError) as exc:
        ev.gates["correct"] = Gate(False, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
    if ev.measured_ms is not None:
        try:
            from .c_kind import c_reference_ms

            ev.c_reference_ms = c_reference_ms(task)
        except Exception as exc:  # noqa: BLE001 - the C timing is extra information
            ev.notes.append(f"C reference not timed: {exc}")
    return ev


def render_text(ev: WrapperEvaluation) -> str:
    lines = [f"task {ev.task} (c, host wrapper) on {ev.device}", f"candidate {ev.candidate}"]
    for name, g in ev.gates.items():
        mark = {True: "pass", False: "FAIL", None: "----"}[g.passed]
        lines.append(f"  gate {name:20s} {mark}  {g.detail}")
    for r in ev.launches:
        launch = f"grid {r.grid} block {r.block} smem {r.smem}" if r.grid else "launch not computable"
        pred = f", predicted {r.predicted_ms:.4f} ms" if r.predicted_ms is not None else ""
        terms = ", ".join(f"{k} {'-' if v is None else f'{v:.2f}'}" for k, v in r.terms.items())
        lines.append(f"  kernel {r.kernel} at {r.where}: {launch}{pred}" + (" (in a host loop)" if r.in_loop else ""))
        if terms:
            lines.append(f"      {terms}")
        for u in r.unresolved:
            lines.append(f"      unknown: {u}")
    if ev.predicted_ms is not None:
        lines.append(f"  predicted {ev.predicted_ms:.4f} ms for {len(ev.launches)} launch(es)")
    if ev.measured_ms is not None:
        lines.append(f"  measured {ev.measured_ms:.4f} ms per call (CUDA events around the wrapper)")
        if ev.baseline_ms:
            lines.append(f"  speedup over the naive port: {ev.baseline_ms / ev.measured_ms:.2f}x "
                         f"({ev.baseline_ms:.4f} ms, stored H200 measurement)")
        if ev.c_reference_ms:
            lines.append(f"  speedup over the -O3 C reference: {ev.c_reference_ms / ev.measured_ms:.2f}x")
    elif ev.predicted_ms is not None and ev.baseline_ms:
        lines.append(f"  predicted speedup over the naive port: {ev.baseline_ms / ev.predicted_ms:.2f}x "
                     f"(its stored H200 time {ev.baseline_ms:.4f} ms)")
    lines += [f"  finding {f}" for f in ev.findings]
    lines += [f"  note {n}" for n in ev.notes]
    return "\n".join(lines)


def cmd_evaluate_wrapper(task: Any, path: str, fmt: str = "text", oracle: str = "auto") -> int:
    """`python -m rl evaluate c/TASK wrapper.cu`: exit 0 no gate failed, 1 a gate failed.
    oracle: auto (the GPU, else the stored run), gpu, replay (the stored run only), none (static)."""
    import json

    from rewardmodel.surrogate import load_default

    ev = evaluate_wrapper(task, path, "cpu" if oracle in ("replay", "none") else "cuda", model=load_default(),
                          replay=oracle in ("auto", "replay"))
    print(json.dumps(ev.to_dict(), indent=1, default=str) if fmt == "json" else render_text(ev))
    return 1 if ev.failed_gate else 0
