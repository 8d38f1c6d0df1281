"""Evaluate a candidate for a `torch` task: gates, correctness, time, speedups, and the analysis.

`evaluate_torch(task, candidate_path)`:

1. loads the candidate (a Python module defining `ModelNew`, its CUDA built with
   load_inline; compiled once per source hash on a GPU machine, not compiled at all on a
   CPU one) and builds Model and ModelNew from the same init inputs under the same seed,
   copying every parameter and buffer whose name and shape match;
2. traces one forward (meta tensors without a GPU, the real inputs with one): which
   extension functions it calls with which shapes, and which ATen ops it leaves to PyTorch;
3. gates: it loads, it builds, it launches its own kernel, it does not leave the reference's
   work to PyTorch, no cuBLAS/cuDNN/torch compute in its C++, no timers or events, its
   extension is called on every forward, it is correct on 3 seeded inputs at the task's
   tolerance (the last three need a GPU);
4. static analysis of its CUDA strings: lint findings at Python positions, and per launch
   (grid and block computed from the traced shapes) the reward's structural terms and the
   surrogate's predicted time, summed over launches, with a per-kernel breakdown;
5. times PyTorch eager, torch.compile and ModelNew in this one process (CUDA events,
   warm-up, median), and per kernel with the profiler.
"""
from __future__ import annotations

import json
import math
import re
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardmodel.reward import TORCH_WRAPPER_NAMES, Gate, RewardConfig, Term
from rl.records import GatedRecord

from .torch_kind import INIT_SEED, TorchTask
from .torch_static import BoundLaunch, CudaUnit, python_hazards, tensor_info
from .torch_trace import (BuildError, Candidate, CandidateError, GlobalsGuard, Trace, load_candidate, reference_run,
                          returned_inputs, trace_forward)

__all__ = ["KernelRow", "Timing", "Correctness", "TorchEvaluation", "evaluate_torch", "render_text",
           "cmd_evaluate_torch", "library_calls", "timer_calls"]

_TORCH_CALL = re.compile(r"\b(?:torch|at)::((?:\w+::)*\w+)")
_LIBRARY = re.compile(r"\b(cublas\w*|cublasLt\w*|cudnn\w*|cutlass::\w+|thrust::\w+|cub::Device\w*|cusparse\w*|"
                      r"cufft\w*|curand\w*)")
# Streams too: a kernel on a stream of its own (a pool stream, a new one) runs outside the
# evaluator's events on the current stream, so its time is never seen. The current stream
# (getCurrentCUDAStream, cudaStream_t) is how a wrapper should launch and stays allowed.
_TIMERS = re.compile(r"\b(clock|clock64|__globaltimer|cudaEvent\w*|cuEvent\w*|cudaGraph\w*|cudaStreamCreate\w*|"
                     r"cudaStreamSynchronize|cudaStreamWaitEvent|cudaStreamBeginCapture|getStreamFromPool|"
                     r"setCurrentCUDAStream|CUDAStreamGuard|nanosleep|__nanosleep|std::chrono::\w+)\b"
                     r"|%globaltimer|%clock")
_COMMENTS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)


def _strip(source: str) -> str:
    return _COMMENTS.sub(lambda m: '""' if m.group(0).startswith('"') else " ", source)


def library_calls(sources: list[str]) -> list[str]:
    """Library or torch compute calls in the C++/CUDA text (comments and strings ignored)."""
    found: set[str] = set()
    for s in sources:
        text = _strip(s)
        for m in _TORCH_CALL.finditer(text):
            first = m.group(1).split("::")[0]
            if first not in TORCH_WRAPPER_NAMES:     # types, allocation, options, streams
                found.add(m.group(0))
        found.update(m.group(0) for m in _LIBRARY.finditer(text))
    return sorted(found)


# PTX special registers read through inline asm: they live inside the asm string, which _strip
# blanks, so they are looked for in the text with only the comments removed.
_PTX_TIMERS = re.compile(r"%%?(globaltimer(?:_lo|_hi)?|clock(?:64)?)\b")
_ONLY_COMMENTS = re.compile(r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/', re.S)


def timer_calls(sources: list[str]) -> list[str]:
    found = {m.group(0) for s in sources for m in _TIMERS.finditer(_strip(s))}
    for s in sources:
        text = _ONLY_COMMENTS.sub(lambda m: m.group(0) if m.group(0).startswith('"') else " ", s)
        found.update(f"%{m.group(1)}" for m in _PTX_TIMERS.finditer(text))
    return sorted(found)


@dataclass
class KernelRow:
    """One launch of one kernel, as a traced forward makes it."""

    kernel: str
    function: str                    # the extension function (wrapper) whose call made it
    call: int                        # 1-based index of that call in the forward
    where: str                       # path:line:col of the `<<<` site (Python position where it maps)
    grid: tuple[int, int, int] | None
    block: tuple[int, int, int] | None
    smem: int | None
    args: dict[str, float]
    call_bytes: int                  # bytes of the tensors the call takes and returns
    in_loop: bool = False
    terms: dict[str, Term] = field(default_factory=dict)
    structural: float | None = None  # sum of value x weight of its terms
    predicted_ms: float | None = None
    measured_ms: float | None = None
    unresolved: list[str] = field(default_factory=list)
    launch_problem: str = ""         # why this launch fails, where known without running it


@dataclass
class Timing:
    eager_ms: float | None = None
    compile_ms: float | None = None
    candidate_ms: float | None = None
    reps: int = 0
    notes: list[str] = field(default_factory=list)


@dataclass
class Correctness:
    passed: bool | None
    seeds: tuple[int, ...] = ()
    max_abs_diff: float | None = None
    detail: str = ""


@dataclass
class TorchEvaluation(GatedRecord):
    task: str
    candidate: str
    device: str
    gates: dict[str, Gate] = field(default_factory=dict)
    correctness: Correctness = field(default_factory=lambda: Correctness(None))
    timing: Timing = field(default_factory=Timing)
    speedup_eager: float | None = None
    speedup_compile: float | None = None
    findings: list[str] = field(default_factory=list)
    kernels: list[KernelRow] = field(default_factory=list)
    terms: dict[str, Term] = field(default_factory=dict)      # over all launches, weighted by predicted time
    predicted_ms: float | None = None                          # the surrogate's sum over launches
    reward: float = 0.0
    torch_ops: list[str] = field(default_factory=list)         # ATen compute ops the forward left to PyTorch
    reference_ops: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# ------------------------------------------------------------------ model building

def _build_models(task: TorchTask, cand: Candidate, device: str):
    """(reference, candidate) built from the same init inputs under the same seed, parameters copied."""
    import torch

    ref = task.reference_model(device, INIT_SEED)
    init = task.init_inputs()
    with cand.active():
        torch.manual_seed(INIT_SEED)
        with torch.device(device):
            new = cand.module.ModelNew(*init)
    if not isinstance(new, torch.nn.Module):
        raise CandidateError(f"ModelNew(*get_init_inputs()) is a {type(new).__name__}, not an nn.Module")
    new = new.to(device).eval()
    ref_state = ref.state_dict()
    new_state = new.state_dict()
    shared = {k: v for k, v in ref_state.items() if k in new_state and new_state[k].shape == v.shape}
    if shared:
        new.load_state_dict(shared, strict=False)
    return ref, new, (len(shared), len(new_state))


# ------------------------------------------------------------------ gates from the trace

def _launch_gate(trace: Trace, units: list[CudaUnit]) -> Gate:
    if not trace.ok:
        return Gate(None, f"not checked: {trace.error}")
    if not trace.calls:
        left = f" (it ran {', '.join(sorted(set(trace.torch_ops)))})" if trace.torch_ops else ""
        return Gate(False, f"forward never calls its extension: no kernel of its own runs{left}")
    launched = [l for c in trace.calls for l in c.binding.launches]
    if launched:
        names = sorted({l.kernel for l in launched})
        called = sorted({c.function for c in trace.calls})
        return Gate(True, f"forward calls {', '.join(called)}, which launch {', '.join(names)}")
    unbound = [c.function for c in trace.calls if not c.binding.found]
    if unbound and any(u.program.launches for u in units):
        return Gate(True, f"calls {', '.join(sorted(set(unbound)))} (defined outside cuda_sources); the CUDA "
                          "has launch sites, not bound to these calls")
    return Gate(False, f"the extension functions it calls ({', '.join(sorted({c.function for c in trace.calls}))}) "
                       "launch no kernel")


def _reference_gate(trace: Trace, ref_ops: list[str]) -> Gate:
    if not trace.ok:
        return Gate(None, f"not checked: {trace.error}")
    need = set(ref_ops)
    if not need:
        return Gate(True, "the reference runs no compute op to compare with")
    left = need & set(trace.torch_ops)
    inner = sorted({op for c in trace.calls for op in c.inner_ops} & need)
    if need <= set(trace.torch_ops) | set(inner):
        return Gate(False, f"the forward leaves all of the reference's work to PyTorch ({', '.join(sorted(left | set(inner)))})")
    if left:
        return Gate(True, f"replaces {', '.join(sorted(need - left))}; keeps {', '.join(sorted(left))} in PyTorch")
    return Gate(True, f"replaces {', '.join(sorted(need))}")


# ------------------------------------------------------------------ static analysis

def _positions(path: Path, units: list[CudaUnit]) -> dict[int, Any]:
    """unit index -> pyextract.Embedded with the same text (for Python positions), where found."""
    from analyzer.pyextract import extract_module

    try:     # every string holding a kernel (a wrapper's argument too), as `lint solution.py` reads them
        embedded = extract_module(path.read_text(encoding="utf-8")).embedded
    except (SyntaxError, OSError, UnicodeDecodeError):
        return {}
    out = {}
    for u in units:
        emb = next((e for e in embedded if e.source == u.source), None)
        if emb is not None:
            out[u.index] = emb
    return out


def _where(path: Path, pos: dict, unit: int, line: int, col: int) -> str:
    emb = pos.get(unit)
    if emb is not None:
        pl, pc = emb.to_python(line, col)
        return f"{path}:{pl}:{pc}"
    return f"{path}:<cuda_sources {unit}>:{line}:{col}"


def _lint(path: Path, units: list[CudaUnit], launches: list[BoundLaunch],
          pos: dict, builds: list | None = None) -> tuple[list[str], list[str], list[str]]:
    """Findings of every CUDA string at Python positions, each kernel linted with its first traced
    launch and with what its build's command line defines (PyTorch's flags, less those its
    extra_cuda_cflags undefine); notes; and why the strings cannot build, where that is known
    without a compiler."""
    from analyzer.directives import device_macros, with_defines
    from analyzer.lint import LaunchSpec, lint_source, split_name_expression
    from rewardmodel.reward import build_problems, unreadable_build_problem

    defines = {u.index: b.defines for b in builds or () for u in b.units}

    findings: list[str] = []
    notes: list[str] = []
    unbuildable: list[str] = []
    for u in units:
        specs: dict[str, LaunchSpec] = {}
        for l in launches:
            base, _ = split_name_expression(l.kernel)
            if l.unit == u.index and l.resolved and base not in specs:
                specs[base] = LaunchSpec(l.block, l.grid, l.smem if l.smem is not None else None, dict(l.args))
        # the traced launches decide, and the candidate's comments hide no finding from its feedback
        macros = with_defines(device_macros("sm_90"), defines[u.index]) if defines.get(u.index) else None
        res = lint_source(u.source, str(path), launches=specs, annotations=False, suppressions=False, macros=macros)
        emb = pos.get(u.index)
        for f in res.findings:
            message = emb.text_to_python(f.message) if emb is not None else f.message
            findings.append(f"{_where(path, pos, u.index, f.line, f.col)}: {f.code} {message}")
        notes.extend(res.notes)
        # a syntax error the analysis reads past (its structural terms would not see what it hides)
        problems = build_problems(res) + [unreadable_build_problem(c.program) for c in res.contexts[:1]]
        for p in filter(None, problems):    # `line N` of the CUDA string as the .py file's line
            p = emb.text_to_python(p) if emb is not None else p
            if p not in unbuildable:
                unbuildable.append(p)
    return findings, notes, unbuildable


_MODEL_CACHE: dict[str, Any] = {}


def _surrogate(model):
    if model != "default":
        return model
    if "default" not in _MODEL_CACHE:
        from rewardmodel.surrogate import load_default

        _MODEL_CACHE["default"] = load_default()
    return _MODEL_CACHE["default"]


def _kernel_rows(path: Path, trace: Trace, units: list[CudaUnit], pos: dict, config: RewardConfig, model,
                 arch: str, notes: list[str]) -> list[KernelRow]:
    from rewardmodel import features as F
    from analyzer.rules.occupancy import opts_in
    from rewardmodel.reward import launch_problem, structural_terms

    by_index = {u.index: u for u in units}
    opted_in = {u.index: opts_in(u.source.encode("utf-8", "replace")) for u in units}   # once a string
    rows: list[KernelRow] = []
    for i, call in enumerate(trace.calls, 1):
        n_launch = len(call.binding.launches)
        for l in call.binding.launches:
            row = KernelRow(l.kernel, call.function, i, _where(path, pos, l.unit, l.line, l.col), l.grid, l.block,
                            l.smem, dict(l.args), call.tensor_bytes, l.in_loop, unresolved=list(l.unresolved))
            if l.in_loop:
                row.unresolved.append("launched inside a loop: counted once")
            rows.append(row)
            if not l.resolved:
                continue
            # the call's bytes are this kernel's bytes only when the call launches nothing else
            problem = F.Problem(bytes=float(call.tensor_bytes) if n_launch == 1 else None)
            try:
                feat = F.extract(by_index[l.unit].source, l.kernel, grid=l.grid, block=l.block, smem=l.smem or 0,
                                 args=l.args, problem=problem, arch=arch, path=str(path))
            except F.FeatureError as exc:
                row.unresolved.append(str(exc))
                continue
            row.launch_problem = launch_problem(F.context_of(feat.lint, l.kernel), l.kernel, opted_in[l.unit])
            row.terms = structural_terms(feat, config)
            row.structural = float(sum(t.value * t.weight for t in row.terms.values() if t.value is not None))
            if model is not None:
                try:
                    iv = model.predict_with_uncertainty(feat.vector()[None, :])
                    row.predicted_ms = float(iv.time_ms[0])
                except Exception as exc:  # noqa: BLE001 - a model that cannot answer is a note, not a crash
                    notes.append(f"surrogate: {type(exc).__name__}: {exc}")
                    model = None
    return rows


def _combine(rows: list[KernelRow], config: RewardConfig) -> dict[str, Term]:
    """Each structural term over all launches, weighted by the launch's predicted time (equal
    weights without a surrogate): summing them instead would pay a candidate for splitting its
    work into more kernels."""
    scored = [r for r in rows if r.terms]
    if not scored:
        return {}
    weights = [r.predicted_ms if r.predicted_ms is not None else 1.0 for r in scored]
    basis = "predicted time" if all(r.predicted_ms is not None for r in scored) else "launch"
    out: dict[str, Term] = {}
    for name in scored[0].terms:
        pairs = [(r.terms[name].value, w) for r, w in zip(scored, weights)
                 if name in r.terms and r.terms[name].value is not None]
        weight = scored[0].terms[name].weight
        if not pairs or sum(w for _, w in pairs) <= 0:
            out[name] = Term(None, weight, "unresolved in every launch")
            continue
        v = sum(v * w for v, w in pairs) / sum(w for _, w in pairs)
        out[name] = Term(float(v), weight, f"mean over {len(pairs)} launch(es), weighted by {basis}")
    return out


# ------------------------------------------------------------------ GPU: correctness and timing

def _compare(ref_out, new_out, atol: float, rtol: float) -> tuple[bool, float | None, str]:
    import torch

    refs = ref_out if isinstance(ref_out, (tuple, list)) else (ref_out,)
    news = new_out if isinstance(new_out, (tuple, list)) else (new_out,)
    if len(refs) != len(news):
        return False, None, f"returns {len(news)} outputs, the reference {len(refs)}"
    worst = 0.0
    for a, b in zip(refs, news):
        if not isinstance(b, torch.Tensor):
            return False, None, f"returns a {type(b).__name__}, not a tensor"
        if tuple(a.shape) != tuple(b.shape):
            return False, None, f"output shape {tuple(b.shape)}, expected {tuple(a.shape)}"
        if b.dtype != a.dtype:
            # no cast before comparing: float16 written for a float32 output halves the bytes and
            # still passes a 1e-2 tolerance
            return False, None, f"output dtype {str(b.dtype).removeprefix('torch.')}, expected " \
                                f"{str(a.dtype).removeprefix('torch.')}"
        if a.is_floating_point():
            diff = (a.double() - b.double()).abs()
            worst = max(worst, float(diff.max()) if diff.numel() else 0.0)
            if not torch.allclose(b, a, atol=atol, rtol=rtol):
                bad = int((~torch.isclose(b, a, atol=atol, rtol=rtol)).sum())
                return False, worst, f"{bad} of {a.numel()} elements off (max abs diff {worst:.3g})"
        elif not torch.equal(a, b):
            return False, None, f"{int((a != b).sum())} of {a.numel()} elements differ"
    return True, worst, ""


def _check(task: TorchTask, ref, new, seeds, device) -> Correctness:
    import torch

    worst = 0.0
    for s in seeds:
        inputs = task.make_inputs(s, device)
        with torch.no_grad():
            ref_out = ref(*inputs)
            try:
                new_out = new(*inputs)
                _sync(device)
            except Exception as exc:  # noqa: BLE001
                return Correctness(False, tuple(seeds), None, f"seed {s}: forward failed: {_first_line(exc)}")
        ok, diff, why = _compare(ref_out, new_out, task.atol, task.rtol)
        if diff is not None:
            worst = max(worst, diff)
        if not ok:
            return Correctness(False, tuple(seeds), diff, f"seed {s}: {why}")
        del inputs, ref_out, new_out
    return Correctness(True, tuple(seeds), worst, f"matched the reference on seeds {', '.join(map(str, seeds))} "
                                                   f"(atol {task.atol:g}, rtol {task.rtol:g})")


def _first_line(exc: BaseException) -> str:
    lines = [l for l in str(exc).strip().splitlines() if l.strip()]
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"[:300]


def _sync(device: str) -> None:
    import torch

    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


def time_forward(fn, inputs, warmup: int = 5, reps: int = 30, device: str = "cuda") -> float:
    """Median milliseconds of fn(*inputs) over `reps` runs, each between two CUDA events (a
    wall clock on a CPU device)."""
    import time

    import torch

    if not str(device).startswith("cuda"):
        with torch.no_grad():
            for _ in range(warmup):
                fn(*inputs)
            times = []
            for _ in range(reps):
                t0 = time.perf_counter()
                fn(*inputs)
                times.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(times)
    with torch.no_grad():
        for _ in range(warmup):
            fn(*inputs)
        torch.cuda.synchronize()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        for s, e in zip(starts, ends):
            s.record()
            fn(*inputs)
            e.record()
        torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))


def _profile_kernels(new, inputs, rows: list[KernelRow], runs: int = 3) -> None:
    """Measured device time per kernel name per forward (the profiler), onto the rows."""
    import torch
    from analyzer.lint import split_name_expression
    from torch.profiler import ProfilerActivity, profile

    with torch.no_grad(), profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            new(*inputs)
        torch.cuda.synchronize()
    totals: dict[str, float] = {}
    for evt in prof.key_averages():
        us = getattr(evt, "device_time_total", None)
        if us is None:
            us = getattr(evt, "cuda_time_total", 0.0)
        totals[evt.key] = totals.get(evt.key, 0.0) + float(us)
    launches_per_kernel: dict[str, int] = {}
    for r in rows:
        base = split_name_expression(r.kernel)[0]
        launches_per_kernel[base] = launches_per_kernel.get(base, 0) + 1
    for r in rows:
        base = split_name_expression(r.kernel)[0]
        pat = re.compile(rf"(^|[\s:]){re.escape(base)}(\(|<)")
        us = sum(v for k, v in totals.items() if pat.search(k))
        if us > 0:
            # the profiler sums by name: a kernel launched k times per forward shares its time evenly
            r.measured_ms = us / 1000.0 / runs / launches_per_kernel[base]


def _time_all(task, ref, new, cand: Candidate, device: str, ev: TorchEvaluation, calls_per_forward: int,
              compile_baseline: bool, warmup: int, reps: int) -> None:
    import torch

    inputs = task.make_inputs(0, device)
    t = ev.timing
    t.reps = reps
    t.eager_ms = time_forward(ref, inputs, warmup, reps, device)
    before = cand.recorder.calls
    t.candidate_ms = time_forward(new, inputs, warmup, reps, device)
    made = cand.recorder.calls - before
    expected = (warmup + reps) * calls_per_forward
    if made < expected:
        ev.gates["work_every_call"] = Gate(False, f"its extension ran {made} times in {warmup + reps} forwards "
                                                  f"({calls_per_forward} per forward traced): results reused")
    else:
        ev.gates["work_every_call"] = Gate(True, f"{made} extension calls in {warmup + reps} timed forwards")
    if compile_baseline:
        try:
            compiled = torch.compile(ref)
            with torch.no_grad():
                compiled(*inputs)          # the compile itself, outside the timing
            t.compile_ms = time_forward(compiled, inputs, warmup, reps, device)
        except Exception as exc:  # noqa: BLE001 - a reference torch.compile cannot handle is a note
            t.notes.append(f"torch.compile failed on the reference: {_first_line(exc)}")
    ev.speedup_eager = t.eager_ms / t.candidate_ms if t.candidate_ms else None
    ev.speedup_compile = t.compile_ms / t.candidate_ms if t.compile_ms and t.candidate_ms else None
    if not str(device).startswith("cuda"):
        return
    try:
        _profile_kernels(new, inputs, ev.kernels)
    except Exception as exc:  # noqa: BLE001
        t.notes.append(f"per-kernel profile unavailable: {_first_line(exc)}")


# ------------------------------------------------------------------ the evaluation

def evaluate_torch(task: TorchTask, candidate_path: str | Path, seeds=(0, 1, 2), device: str = "cuda", *,
                   model: Any = None, compile_baseline: bool = True, arch: str = "sm_90", warmup: int = 5,
                   reps: int = 30, config: RewardConfig | None = None, build: bool | None = None,
                   replay: bool = False) -> TorchEvaluation:
    """Everything about one candidate for one torch task.

    build: compile the candidate and run it on `device` (the default where `device` is CUDA and
    torch sees a GPU). Without, the static half only: gates from a shape-only trace on the meta
    device, findings, kernels. model: a surrogate for predicted kernel times, "default" for the
    shipped one, None for none. replay: where nothing is built, answer the build, correctness and
    times from this exact module's stored GPU run when there is one (rl.tasks.module_replay).

    Whatever the candidate patches (torch, time, the reference's Model, this module) is put back
    afterwards, and fails the no_patching gate even when done after the checks ran."""
    config = config or RewardConfig()
    problem = task.module()
    if compile_baseline:
        _warm_compile(device, build)
    guard = GlobalsGuard({"problem": problem, "Model": problem.Model})
    try:
        ev = _evaluate(task, Path(candidate_path), seeds, device, guard, model=model, compile_baseline=compile_baseline,
                       arch=arch, warmup=warmup, reps=reps, config=config, build=build, replay=replay)
    finally:
        patched = guard.restore()
    if patched and ev.gates.get("no_patching", Gate(True)).passed is not False:
        ev.gates["no_patching"] = Gate(False, f"replaced {', '.join(patched)} during the evaluation (put back)")
        ev.reward = config.fail_reward
    return ev


_WARM: set[str] = set()


def _warm_compile(device: str, build: bool | None) -> None:
    """torch.compile's first call in a process patches torch (dynamo wraps nn.Module.__init__ and
    __setstate__, torch.manual_seed & co.): done once on a trivial module before the guard's
    snapshot, so the compiled baseline is never taken for the candidate's patching. Only where
    the baseline will be compiled (built on a GPU)."""
    import torch

    dynamic = build if build is not None else (str(device).startswith("cuda") and torch.cuda.is_available())
    if not dynamic or device in _WARM:
        return
    import torch._dynamo  # noqa: F401 - its import wraps torch.manual_seed
    try:
        with torch.no_grad():
            torch.compile(torch.nn.Identity())(torch.zeros(1, device=device))
    except Exception:  # noqa: BLE001 - a torch.compile that cannot run leaves a note later, not here
        pass
    finally:
        torch._dynamo.reset()
    _WARM.add(device)


def _patch_gate(static: list[str], guard: GlobalsGuard) -> Gate:
    runtime = guard.changed()
    if runtime:
        return Gate(False, f"replaced {', '.join(runtime)} (put back after the evaluation)")
    if static:
        return Gate(False, f"assigns or reaches {', '.join(static)}: not the candidate's to change")
    return Gate(True)


def _flat(out) -> list:
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _describe(t) -> str:
    return f"{tuple(t.shape)} {str(t.dtype).removeprefix('torch.')}"


def _output_gate(trace: Trace, ref_out) -> Gate:
    """The traced output's shapes and dtypes against the reference's: on the meta device they
    come from the C++ wrapper's `return` (torch_static), so a wrong output is seen without a GPU."""
    import torch

    if not trace.ok:
        return Gate(None, f"not checked: {trace.error}")
    news, refs = _flat(trace.output), _flat(ref_out)
    if len(news) != len(refs):
        return Gate(False, f"returns {len(news)} output(s), the reference {len(refs)}")
    assumed = any(c.result_assumed for c in trace.calls)
    for i, (a, b) in enumerate(zip(refs, news)):
        if not isinstance(b, torch.Tensor):
            return Gate(False, f"output {i} is a {type(b).__name__}, not a tensor")
        if tuple(a.shape) != tuple(b.shape) or a.dtype != b.dtype:
            if assumed:
                return Gate(None, f"not checked: output {i} is {_describe(b)} but an extension result was assumed")
            what = (f"shape {tuple(b.shape)}, expected {tuple(a.shape)}" if tuple(a.shape) != tuple(b.shape) else
                    f"dtype {str(b.dtype).removeprefix('torch.')}, expected {str(a.dtype).removeprefix('torch.')}")
            return Gate(False, f"output {what}" + (f" (output {i})" if len(refs) > 1 else ""))
    return Gate(True, ", ".join(_describe(t) for t in refs) + " like the reference")


def _repeat_gate(first: Trace, second: Trace) -> Gate:
    """A second forward on other inputs must call the extension as often and return a new tensor:
    a result cached at the first call shows here, without a GPU."""
    if not first.ok or not second.ok:
        return Gate(None, f"not checked: {first.error or second.error}")
    if len(second.calls) < len(first.calls):
        return Gate(False, f"a second forward on new inputs made {len(second.calls)} extension call(s), the first "
                           f"{len(first.calls)}: results reused")
    same = [i for i, (a, b) in enumerate(zip(_flat(first.output), _flat(second.output))) if a is not None and a is b]
    if same:
        return Gate(False, f"a second forward on new inputs returned the same tensor (output {same[0]}): results reused")
    return Gate(True, f"a second forward on new inputs called its extension again ({len(second.calls)} call(s))")


def _evaluate(task: TorchTask, path: Path, seeds, device: str, guard: GlobalsGuard, *, model: Any,
              compile_baseline: bool, arch: str, warmup: int, reps: int, config: RewardConfig,
              build: bool | None, replay: bool = False) -> TorchEvaluation:
    import torch

    try:
        static_patches, py_timing = python_hazards(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        static_patches, py_timing = [], []
    dynamic = build if build is not None else (device.startswith("cuda") and torch.cuda.is_available())
    ev = TorchEvaluation(task.id, str(path), device if dynamic else "meta")
    if not dynamic:
        ev.notes.append(f"not built or run ({device!r} asked for, no CUDA device or build=False): static analysis "
                        "only; build, correctness and time not checked")
    try:
        cand = load_candidate(path, build=dynamic)
    except BuildError as exc:
        ev.gates["loads"] = Gate(True, "the module runs up to its load_inline")
        ev.gates["builds"] = Gate(False, str(exc))
        ev.reward = config.fail_reward
        return ev
    except CandidateError as exc:
        ev.gates["loads"] = Gate(False, str(exc))
        ev.reward = config.fail_reward
        return ev
    units = cand.units
    ev.gates["loads"] = Gate(True, f"ModelNew defined; {len(cand.builds)} extension(s), {len(units)} CUDA string(s)")
    ev.gates["builds"] = (Gate(True, ", ".join(b.built_name for b in cand.builds) or "nothing to build") if dynamic
                          else Gate(None, "not checked: not built (no CUDA device)"))
    run_device = device if dynamic else "meta"
    try:
        ref, new, (copied, n_state) = _build_models(task, cand, run_device)
    except BuildError as exc:
        ev.gates["builds"] = Gate(False, str(exc))
        ev.reward = config.fail_reward
        return ev
    except Exception as exc:  # noqa: BLE001 - the candidate's constructor is its own problem
        why = str(exc) if isinstance(exc, CandidateError) else _first_line(exc)
        gate = Gate(False if dynamic else None, f"building ModelNew failed: {why}")
        ev.gates["launches_own_kernel"] = gate
        if dynamic:
            ev.gates["correct"] = Gate(False, gate.detail)
            ev.reward = config.fail_reward
        ev.notes.append(gate.detail)
        return _static_only(ev, path, cand, config, py_timing, _patch_gate(static_patches, guard))
    if n_state:
        ev.notes.append(f"{copied} of {n_state} ModelNew parameters/buffers copied from Model (same name and shape)")
    inputs = task.make_inputs(seeds[0] if seeds else 0, run_device)
    trace = trace_forward(cand, new, inputs)
    ref_out = None
    try:
        ev.reference_ops, ref_out = reference_run(ref, inputs)
    except Exception as exc:  # noqa: BLE001
        ev.notes.append(f"reference ops unavailable: {_first_line(exc)}")
    ev.torch_ops = trace.torch_ops
    ev.gates["launches_own_kernel"] = _launch_gate(trace, cand.units)
    ev.gates["does_own_work"] = _reference_gate(trace, ev.reference_ops)
    if trace.ok and ref_out is not None:
        mine = returned_inputs(trace.output, inputs)
        if mine and not returned_inputs(ref_out, inputs):
            ev.gates["does_own_work"] = Gate(False, f"returns its input {mine[0]} (or a view of it): the output is "
                                                    "not computed into a tensor of its own")
    ev.gates["output_shape"] = (_output_gate(trace, ref_out) if ref_out is not None
                                else Gate(None, "not checked: the reference did not run"))
    del inputs, ref_out
    again = task.make_inputs(seeds[1] if len(seeds) > 1 else 1, run_device)
    ev.gates["work_every_call"] = _repeat_gate(trace, trace_forward(cand, new, again))
    del again
    trace.output = None             # on a GPU the check and timing need the memory
    sources = [s for b in cand.builds for s in b.cuda_sources + b.cpp_sources]
    lib = library_calls(sources)
    inner = sorted({op for c in trace.calls for op in c.inner_ops})
    if lib or inner:
        ev.gates["no_library_call"] = Gate(False, "calls " + ", ".join(lib + inner))
    else:
        ev.gates["no_library_call"] = Gate(True)
    timers = timer_calls(sources) + py_timing
    ev.gates["no_timers"] = Gate(False, "touches " + ", ".join(timers)) if timers else Gate(True)
    ev.gates["no_patching"] = _patch_gate(static_patches, guard)
    for c in trace.calls:
        ev.notes.extend(c.binding.notes)

    pos = _positions(path, units)
    launches = [l for c in trace.calls for l in c.binding.launches]
    ev.findings, lint_notes, unbuildable = _lint(path, units, launches, pos, cand.builds)
    ev.notes.extend(lint_notes)
    _unbuildable_gate(ev, unbuildable, dynamic)
    sur = _surrogate(model) if model is not None else None
    ev.kernels = _kernel_rows(path, trace, units, pos, config, sur, arch, ev.notes)
    cannot_launch = [f"{r.where}: {r.launch_problem}" for r in ev.kernels if r.launch_problem]
    if cannot_launch and not dynamic:      # on a GPU the run says it (the launch's CUDA error)
        ev.gates["launch"] = Gate(False, "; ".join(cannot_launch))
    ev.terms = _combine(ev.kernels, config)
    preds = [r.predicted_ms for r in ev.kernels if r.predicted_ms is not None]
    ev.predicted_ms = float(sum(preds)) if preds and len(preds) == len(ev.kernels) else None

    if dynamic and trace.ok and not ev.failed_gate:
        ev.correctness = _check(task, ref, new, seeds, device)
        ev.gates["correct"] = Gate(ev.correctness.passed, ev.correctness.detail)
        if ev.correctness.passed:
            _time_all(task, ref, new, cand, device, ev, len(trace.calls), compile_baseline, warmup, reps)
    elif dynamic and ev.failed_gate == "output_shape":      # a real forward's wrong output is wrong, not unchecked
        why = f"seed {seeds[0] if seeds else 0}: {ev.gates['output_shape'].detail}"
        ev.correctness = Correctness(False, tuple(seeds), None, why)
        ev.gates["correct"] = Gate(False, why)
    elif dynamic:
        why = trace.error or f"gate {ev.failed_gate} failed"
        ev.correctness = Correctness(False if trace.error else None, tuple(seeds), None, why)
        ev.gates["correct"] = Gate(ev.correctness.passed, why if trace.error else f"not checked: {why}")
    else:
        stored = _stored(task, path) if replay and not ev.failed_gate else None
        if stored is None:
            ev.gates["correct"] = Gate(None, "not checked: not built or run")
        else:
            _replayed(ev, stored)
    _score(ev, config)
    return ev


def _stored(task: TorchTask, path: Path):
    from .module_replay import INLINE, stored_run

    try:
        return stored_run(INLINE, task.id, path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def _replayed(ev: TorchEvaluation, stored) -> None:
    """The stored GPU run of this exact module (rl.tasks.module_replay): the gate it failed there,
    or its correctness and the times of that one process (candidate, eager, torch.compile)."""
    ev.device = f"meta, {stored.where}"
    ev.notes = [n for n in ev.notes if not n.startswith("not built or run")]
    if not stored.apply_gates(ev.gates):
        return
    ev.correctness = Correctness(ev.gates["correct"].passed, (0, 1, 2), None, ev.gates["correct"].detail)
    t = ev.timing
    t.candidate_ms = stored.time_ms
    if t.candidate_ms is None:
        return
    t.eager_ms, t.compile_ms = stored.params.get("eager_ms"), stored.params.get("compile_ms")
    t.reps = 30                     # measure_modules runs `rl evaluate`, whose default this is
    ev.speedup_eager = t.eager_ms / t.candidate_ms if t.eager_ms else None
    ev.speedup_compile = t.compile_ms / t.candidate_ms if t.compile_ms else None
    for row, launch in zip(ev.kernels, stored.params.get("launches", [])):
        if row.kernel == launch.get("kernel"):
            row.measured_ms = launch.get("measured_ms")


def _static_only(ev: TorchEvaluation, path: Path, cand: Candidate, config: RewardConfig, py_timing: list[str],
                 patching: Gate) -> TorchEvaluation:
    """Findings of the CUDA strings when no forward could be traced (launches from the source or defaults)."""
    pos = _positions(path, cand.units)
    ev.findings, notes, unbuildable = _lint(path, cand.units, [], pos, cand.builds)
    ev.notes.extend(notes)
    _unbuildable_gate(ev, unbuildable, ev.device != "meta")
    sources = [s for b in cand.builds for s in b.cuda_sources + b.cpp_sources]
    lib, timers = library_calls(sources), timer_calls(sources) + py_timing
    ev.gates["no_library_call"] = Gate(False, "calls " + ", ".join(lib)) if lib else Gate(True)
    ev.gates["no_timers"] = Gate(False, "touches " + ", ".join(timers)) if timers else Gate(True)
    ev.gates["no_patching"] = patching
    _score(ev, config)
    return ev


def _unbuildable_gate(ev: TorchEvaluation, unbuildable: list[str], built: bool) -> None:
    """Where nothing was built, what is known to break the build (rewardmodel.reward.build_problems)
    fails the builds gate; a real build has said what it says already."""
    if unbuildable and not built:
        ev.gates["builds"] = Gate(False, "; ".join(unbuildable))


def _score(ev: TorchEvaluation, config: RewardConfig) -> None:
    """fail_reward past a failed gate; else the clipped log speedup over eager (measured only) plus
    the structural terms."""
    if ev.failed_gate:
        ev.reward = config.fail_reward
        return
    terms = dict(ev.terms)
    if ev.speedup_eager:
        s = max(-config.speed_clip, min(config.speed_clip, math.log(ev.speedup_eager)))
        terms["speed"] = Term(s, config.w_speed, f"{ev.speedup_eager:.2f}x PyTorch eager (measured)")
    else:
        terms["speed"] = Term(None, config.w_speed, "not measured")
    ev.terms = terms
    ev.reward = float(sum(t.value * t.weight for t in terms.values() if t.value is not None))


# ------------------------------------------------------------------ output

def _fmt_ms(v: float | None) -> str:
    return "-" if v is None else f"{v:.4f} ms"


def render_text(ev: TorchEvaluation, task: TorchTask | None = None) -> str:
    lines = [f"task {ev.task} (torch)" + (f": {task.description}" if task else ""),
             f"candidate {ev.candidate} on {ev.device}"]
    for name, g in ev.gates.items():
        mark = {True: "pass", False: "FAIL", None: "----"}[g.passed]
        lines.append(f"  gate {name:22s} {mark}  {g.detail}".rstrip())
    t = ev.timing
    if t.candidate_ms is not None:
        sp = []
        if ev.speedup_eager:
            sp.append(f"{ev.speedup_eager:.2f}x eager")
        if ev.speedup_compile:
            sp.append(f"{ev.speedup_compile:.2f}x torch.compile")
        lines.append(f"  time candidate {_fmt_ms(t.candidate_ms)}, eager {_fmt_ms(t.eager_ms)}, torch.compile "
                     f"{_fmt_ms(t.compile_ms)} (median of {t.reps}): {', '.join(sp)}")
    for n in t.notes:
        lines.append(f"  time note: {n}")
    for r in ev.kernels:
        launch = (f"grid {r.grid} block {r.block}" + (f" smem {r.smem}" if r.smem else "")) if r.grid and r.block \
            else "launch not computable"
        lines.append(f"  kernel {r.kernel} ({r.function} call {r.call}) at {r.where}: {launch}")
        parts = [f"{k} {'-' if v.value is None else f'{v.value:.2f}'}" for k, v in r.terms.items()]
        extra = []
        if r.predicted_ms is not None:
            extra.append(f"predicted {r.predicted_ms:.4f} ms")
        if r.measured_ms is not None:
            extra.append(f"measured {r.measured_ms:.4f} ms")
        if parts or extra:
            lines.append("      " + ", ".join(parts + extra))
        for u in r.unresolved:
            lines.append(f"      unresolved: {u}")
    if ev.kernels:
        total = f", predicted {ev.predicted_ms:.4f} ms in all" if ev.predicted_ms is not None else ""
        lines.append(f"  kernels: {len(ev.kernels)} launch(es) per forward{total}")
    for name, term in ev.terms.items():
        v = "-" if term.value is None else f"{term.value:+.3f}"
        lines.append(f"  term {name:14s} {v} x {term.weight:g}  {term.why}")
    for f in ev.findings:
        lines.append(f"  finding {f}")
    for n in ev.notes:
        lines.append(f"  note {n}")
    lines.append(f"reward {ev.reward:.3f}" + (f"  (gate {ev.failed_gate} failed)" if ev.failed_gate else ""))
    return "\n".join(lines)


def cmd_evaluate_torch(task_id: str, candidate_path: str, fmt: str = "text", *, oracle: str = "auto",
                       model: Any = "default", compile_baseline: bool = True) -> int:
    """`python -m rl evaluate torch/... CANDIDATE.py`: 0 no gate failed, 1 a gate failed, 2 bad input.
    oracle: auto (the GPU, else the stored run), gpu, replay (the stored run only), none (static)."""
    from . import UnknownTask
    from .torch_kind import loader

    tasks = loader()
    task = tasks.get(task_id)
    if task is None:
        near = ", ".join(t for t in sorted(tasks) if t.split("/")[1:2] == task_id.split("/")[1:2])[:200]
        print(f"error: {UnknownTask(f'unknown task {task_id!r}' + (f' (sizes: {near})' if near else ''))}",
              file=sys.stderr)
        return 2
    p = Path(candidate_path)
    if not p.is_file():
        print(f"error: {candidate_path}: no such file", file=sys.stderr)
        return 2
    if p.suffix != ".py":
        print(f"error: {candidate_path}: a torch candidate is a Python module defining ModelNew (.py)", file=sys.stderr)
        return 2
    try:
        m = model
        if m == "default":
            try:
                m = _surrogate("default")
            except (FileNotFoundError, ImportError) as exc:
                print(f"note: no surrogate ({exc}); kernel times not predicted", file=sys.stderr)
                m = None
        ev = evaluate_torch(task, p, device="cpu" if oracle in ("replay", "none") else "cuda", model=m,
                            compile_baseline=compile_baseline, replay=oracle in ("auto", "replay"))
    except KeyboardInterrupt:
        raise
    if fmt == "json":
        print(json.dumps(ev.to_dict(), indent=1, default=str))
    else:
        print(render_text(ev, task))
    return 1 if ev.failed_gate else 0
