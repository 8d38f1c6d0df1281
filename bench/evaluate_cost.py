"""What one real evaluation costs per task kind, next to the surrogate's answer for the same candidates.

Kinds: `family` (corpus family variants), `c` (ports of sequential C), `torch-port` (raw kernels
for torch tasks) -- each a kernel plus a launch, evaluated by the profiler (`rl.oracle.LocalGPU`:
NVRTC compile, correctness against the reference, timing) -- and `torch-inline` (load_inline
modules, `rl.tasks.torch_eval.evaluate_torch`: the extension build with nvcc, the gates,
correctness on 3 seeds, eager / torch.compile / candidate timing, the per-kernel profile) and
`c-wrapper` (host wrappers of c tasks, `rl.tasks.c_wrapper`: nvcc build, 3 seeds, event timing).

Real: each candidate is evaluated alone, from cold caches (a fresh NVRTC cache and extension
build directory), and its wall seconds recorded, split into compile and the rest; the first
candidate of a kind also pays the profiler's start-up, reported apart. Surrogate: the same
candidates through the reward's static path (parse, analyzer, features, gates, prediction with
the shipped model; for load_inline modules the shape-only trace and per-launch prediction).

    python bench/evaluate_cost.py [--per-kind 8]        # real columns need a GPU; the rest runs anywhere
Writes bench/results/evaluate_cost.json and prints a table.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

INLINE = [("relu_inline.py", "torch/relu/small"), ("linear_bias_relu_two_kernels.py", "torch/linear_bias_relu/small"),
          ("softmax_inline.py", "torch/softmax/medium"), ("transpose_inline.py", "torch/transpose/medium")]


def pick(kind: str, n: int):
    """n candidates of a kind: one per task first (distinct problems), in id order, then more."""
    from rl.tasks import all_tasks

    tasks = [t for _, t in sorted(all_tasks([{"torch-port": "torch"}.get(kind, kind)]).items())
             if getattr(t, "baseline", None) is not None]
    rounds = max((len(t.candidates) for t in tasks), default=0)
    out = []
    for r in range(rounds):
        for t in tasks[r % 7::7] + tasks:        # spread over families before repeating
            if len(t.candidates) > r and t.candidates[r] not in out:
                out.append(t.candidates[r])
            if len(out) >= n:
                return out
    return out


def surrogate_cost(samples, model) -> list[float]:
    from rewardmodel.dataset import sample_args
    from rewardmodel.features import Problem
    from rewardmodel.reward import reward

    out = []
    for s in samples[:1] + samples:     # the first call, untimed, pays the imports and the model's first predict
        t0 = time.perf_counter()
        reward(s.source, s.kernel, grid=s.grid, block=s.block, smem=s.smem, args=sample_args(s),
               problem=Problem(s.bytes, s.flops), model=model, ptxas=False, baseline_ms=0.1)
        out.append(time.perf_counter() - t0)
    return out[1:]


def real_cost(samples) -> dict:
    from rl.oracle import LocalGPU

    walls, compiles, runs, statuses = [], [], [], []
    with tempfile.TemporaryDirectory() as cache:
        from analyzer.profile import Settings

        oracle = LocalGPU(Settings(timeout_s=30.0, cache_dir=cache))
        try:
            t0 = time.perf_counter()
            oracle._open()
            startup = time.perf_counter() - t0
            for s in samples:
                t0 = time.perf_counter()
                a = oracle.measure([s])[0]
                walls.append(time.perf_counter() - t0)
                compiles.append(a.compile_s)
                runs.append(a.run_s)
                statuses.append(a.status)
        finally:
            oracle.close()
    return {"startup_s": startup, "wall_s": walls, "compile_s": compiles, "run_s": runs, "status": statuses}


def module_costs(items, gpu: bool, static, build, real, measured_ms) -> dict:
    """Whole-module candidates [(label, task, path)]: the static path (`static(task, path)`), and on
    a GPU a cold build (`build(path)`, a fresh $CUDAPERF_CACHE) then the real evaluation
    (`real(task, path)`, whose time `measured_ms(ev)` reads), each timed."""
    rows = []
    if items:       # imports (torch for load_inline) are paid once per reward process, not per candidate
        static(items[0][1], items[0][2])
    with tempfile.TemporaryDirectory() as cache:
        os.environ["CUDAPERF_CACHE"] = cache          # cold builds
        for label, task, path in items:
            row = {"candidate": label, "task": task.id}
            t0 = time.perf_counter()
            static(task, path)
            row["surrogate_s"] = time.perf_counter() - t0
            if gpu:
                t0 = time.perf_counter()
                build(path)
                row["build_s"] = time.perf_counter() - t0
                t0 = time.perf_counter()
                ev = real(task, path)
                row["eval_s"] = time.perf_counter() - t0
                row["wall_s"] = row["build_s"] + row["eval_s"]
                row["failed_gate"] = ev.failed_gate
                row["candidate_ms"] = measured_ms(ev)
            rows.append(row)
    return {"rows": rows}


def inline_costs(model, gpu: bool, n: int = len(INLINE)) -> dict:
    """load_inline modules: the extension build, then gates, 3 seeds, eager / compile / candidate timing."""
    from rl.tasks import get
    from rl.tasks.torch_eval import evaluate_torch
    from rl.tasks.torch_trace import load_candidate

    cand_dir = ROOT / "rl" / "suites" / "torch" / "candidates"
    items = [(name, get(tid), cand_dir / name) for name, tid in INLINE[:n]]
    return module_costs(items, gpu, lambda t, p: evaluate_torch(t, p, device="cpu", model=model),
                        lambda p: load_candidate(p, build=True),
                        lambda t, p: evaluate_torch(t, p, device="cuda", model=model),
                        lambda ev: ev.timing.candidate_ms)


def wrapper_costs(model, gpu: bool, n: int) -> dict:
    """Host wrappers of c tasks (rl/suites/c/wrappers): nvcc build, then 3 seeds and event timing."""
    from rl.tasks import get
    from rl.tasks.c_wrapper import build_library, evaluate_wrapper

    paths = sorted((ROOT / "rl" / "suites" / "c" / "wrappers").glob("*/*.cu"))
    paths = [p for i, p in enumerate(paths) if i % max(1, len(paths) // max(1, n)) == 0][:n]
    items = [(f"{p.parent.name}/{p.name}", get(f"c/{p.parent.name}/medium"), p) for p in paths]
    return module_costs(items, gpu, lambda t, p: evaluate_wrapper(t, p, device="cpu", model=model),
                        lambda p: build_library(p.read_text()),
                        lambda t, p: evaluate_wrapper(t, p, model=model),
                        lambda ev: ev.measured_ms)


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-kind", type=int, default=8)
    ap.add_argument("--inline", type=int, default=len(INLINE), help="load_inline candidates (each builds ~45 s cold)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "evaluate_cost.json"))
    args = ap.parse_args(argv)

    from analyzer.profile import toolkit
    from rewardmodel.surrogate import load_default

    gpu = toolkit.has_gpu()
    model = load_default()
    kinds = {}
    for kind in ("family", "c", "torch-port"):
        samples = pick(kind, args.per_kind)
        sur = surrogate_cost(samples, model)
        kinds[kind] = {"n": len(samples), "surrogate_s": sur, "candidates": [s.sample_id for s in samples]}
        if gpu:
            kinds[kind].update(real_cost(samples))
        print(f"[evaluate_cost] {kind}: {len(samples)} candidates done", file=sys.stderr, flush=True)
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"partial": True, "kinds": kinds}, indent=1, default=str))
    inline = inline_costs(model, gpu, args.inline)
    wrappers = wrapper_costs(model, gpu, args.per_kind)

    rows = []
    for kind, d in kinds.items():
        rows.append({"kind": kind, "n": d["n"], "real_s": med(d.get("wall_s", [])),
                     "compile_s": med(d.get("compile_s", [])), "check_time_s": med(d.get("run_s", [])),
                     "startup_s": d.get("startup_s"), "surrogate_ms": 1e3 * med(d["surrogate_s"]),
                     "ok": sum(s == "ok" for s in d.get("status", []))})
    for kind, part in (("c-wrapper", wrappers), ("torch-inline", inline)):
        ir = part["rows"]
        rows.append({"kind": kind, "n": len(ir), "real_s": med([r.get("wall_s") for r in ir]),
                     "compile_s": med([r.get("build_s") for r in ir]),
                     "check_time_s": med([r.get("eval_s") for r in ir]), "startup_s": None,
                     "surrogate_ms": 1e3 * med([r["surrogate_s"] for r in ir]) if ir else None,
                     "ok": sum(r.get("failed_gate") is None and r.get("candidate_ms") is not None for r in ir)})
    for r in rows:
        r["ratio"] = r["real_s"] / (r["surrogate_ms"] / 1e3) if r["real_s"] and r["surrogate_ms"] else None

    fmt = lambda v, p=3: "-" if v is None else f"{v:.{p}f}"  # noqa: E731
    print(f"{'kind':<13} {'n':>3} {'ok':>3} {'real s/eval':>11} {'compile s':>9} {'check+time s':>12} "
          f"{'start-up s':>10} {'surrogate ms':>12} {'real/surrogate':>14}")
    for r in rows:
        print(f"{r['kind']:<13} {r['n']:>3} {r['ok']:>3} {fmt(r['real_s']):>11} {fmt(r['compile_s']):>9} "
              f"{fmt(r['check_time_s']):>12} {fmt(r['startup_s'], 2):>10} {fmt(r['surrogate_ms'], 2):>12} "
              f"{fmt(r['ratio'], 0):>14}")
    if not gpu:
        print("(no GPU here: real columns need one; run on the device)")
    machine = {"platform": platform.platform(), "python": platform.python_version(), "cpu": platform.processor(),
               "gpu": toolkit.gpu_arch() if gpu else None,
               "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({"machine": machine, "rows": rows, "kinds": kinds, "inline": inline,
                                          "wrappers": wrappers},
                                         indent=1, default=str) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
