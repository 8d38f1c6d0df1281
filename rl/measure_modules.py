"""`python -m rl.measure_modules`: measure whole-module candidates on this GPU into the corpus store.

`python -m rl measure` profiles kernel + launch candidates (Samples). The two other styles RL
models write are whole modules: host wrappers of `c` tasks (rl/suites/c/wrappers/NAME/*.cu:
kernels plus a host function with the C reference's signature) and load_inline modules of
`torch` tasks (rl/suites/torch/candidates/*.py whose first docstring line names its task,
"... for torch/relu ..."). Each is evaluated by `python -m rl evaluate TASK FILE --format json`
in a process of its own (a candidate that faults the GPU loses only its own CUDA context), at
each size asked, and becomes one row of the store: style `host_wrapper` or `load_inline`, the
measured time per call, status `ok` or the failed gate, and in `params` the launches (kernel,
grid, block, predicted and measured time) and, for torch, the eager and torch.compile times of
the same process. Rows already stored for this GPU are skipped; each row is flushed as it comes.

    python -m rl.measure_modules --size small --size medium --time-budget 480 [--out DIR] [--dry-run]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus import collect, store
from rl.tasks.module_replay import INLINE as INLINE_STYLE, WRAPPER, module_sample_id

ROOT = Path(__file__).resolve().parent
WRAPPERS = ROOT / "suites" / "c" / "wrappers"
INLINE = ROOT / "suites" / "torch" / "candidates"
_NAMES_TASK = re.compile(r"\bfor (torch/[A-Za-z0-9_.-]+)")


@dataclass(frozen=True)
class Job:
    style: str              # host_wrapper | load_inline
    task_id: str            # c/dot/medium, torch/relu/small
    path: Path

    @property
    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")

    @property
    def sample_id(self) -> str:
        return module_sample_id(self.style, self.task_id, self.text)


def inline_task(path: Path) -> str | None:
    """The torch problem a load_inline candidate names in its docstring's first line, or None."""
    first = path.read_text(encoding="utf-8").lstrip().lstrip('"\'rb').splitlines()[0] if path.is_file() else ""
    m = _NAMES_TASK.search(first)
    return m.group(1) if m else None


def jobs(sizes: list[str]) -> list[Job]:
    """Every wrapper and load_inline candidate at every size asked that its task has."""
    from rl.tasks import all_tasks

    tasks = all_tasks(["c", "torch"])
    out = []
    for p in sorted(WRAPPERS.glob("*/*.cu")):
        out += [Job(WRAPPER, f"c/{p.parent.name}/{s}", p) for s in sizes if f"c/{p.parent.name}/{s}" in tasks]
    for p in sorted(INLINE.glob("*.py")):
        name = inline_task(p)
        if name:
            out += [Job(INLINE_STYLE, f"{name}/{s}", p) for s in sizes if f"{name}/{s}" in tasks]
    return out


def _status(ev: dict) -> tuple[str, str]:
    failed = ev.get("failed_gate")
    if failed:
        return ("wrong_result" if failed == "correct" else f"gate_{failed}"), \
            str(ev.get("gates", {}).get(failed, {}).get("detail", ""))[:300]
    return "ok", ""


def row_of(job: Job, ev: dict, wall_s: float, prov: dict, run_id: str) -> dict[str, Any]:
    """One store row for one module evaluation (`ev`: the evaluate command's JSON)."""
    from rl.tasks import get

    task = get(job.task_id)
    status, message = _status(ev)
    if job.style == WRAPPER:
        launches = [{k: r.get(k) for k in ("kernel", "grid", "block", "smem", "predicted_ms")} for r in ev["launches"]]
        time_ms = ev.get("measured_ms")
        extra = {"baseline_ms": ev.get("baseline_ms"), "c_reference_ms": ev.get("c_reference_ms")}
    else:
        launches = [{k: r.get(k) for k in ("kernel", "grid", "block", "smem", "predicted_ms", "measured_ms")}
                    for r in ev["kernels"]]
        t = ev.get("timing") or {}
        time_ms = t.get("candidate_ms")
        extra = {"eager_ms": t.get("eager_ms"), "compile_ms": t.get("compile_ms")}
    if status == "ok" and not time_ms:
        status, message = "not_timed", "no time measured (no GPU in the evaluating process?)"
    base = getattr(task, "baseline", None)
    family = base.family if base is not None else f"torch_{task.family}"
    row = {
        "sample_id": job.sample_id, "source_hash": hashlib.sha256(job.text.encode()).hexdigest()[:16],
        "family": family, "variant": job.path.stem, "size": task.size, "task_id": f"{family}/{task.size}",
        "params": json.dumps({"style": job.style, "path": str(job.path.relative_to(ROOT.parent)),
                              "launches": launches, **extra}, default=str),
        "origin": "family", "style": job.style, "kernel": "+".join(l["kernel"] for l in launches),
        "bytes": getattr(base, "bytes", None), "flops": getattr(base, "flops", None), "baseline": False,
        "status": status, "message": message, "time_ms": time_ms, "run_s": wall_s, "pass": "main",
        "has_counters": False, "run_id": run_id, **prov,
    }
    return store.normalise(row)


def evaluate(job: Job, timeout: float) -> tuple[dict | None, float, str]:
    """(the evaluation's JSON or None, wall seconds, error line) from a process of its own."""
    t0 = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-m", "rl", "evaluate", job.task_id, str(job.path), "--format", "json",
                               "--oracle", "gpu"],       # a measurement, never a replay of a stored run
                              capture_output=True, text=True, timeout=timeout, cwd=str(ROOT.parent))
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - t0, f"timed out after {timeout:.0f} s"
    wall = time.monotonic() - t0
    try:
        return json.loads(proc.stdout), wall, ""
    except ValueError:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return None, wall, f"exit {proc.returncode}: {tail[:200]}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rl.measure_modules", description=__doc__.splitlines()[0])
    ap.add_argument("--size", action="append", default=[], help="task size (repeatable; default small and medium)")
    ap.add_argument("--out", default=str(store.DATA_DIR), help="folder for the new part file (default corpus/data)")
    ap.add_argument("--time-budget", type=float, default=0.0, help="no evaluation starts after this many seconds")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per evaluation (a cold load_inline build "
                                                                  "is ~55 s)")
    ap.add_argument("--dry-run", action="store_true", help="list what would be measured")
    ap.add_argument("--gpu", help="with --dry-run on a machine without a GPU: plan against this GPU's stored rows")
    args = ap.parse_args(argv)
    sizes = args.size or ["small", "medium"]
    todo_all = jobs(sizes)
    gpu, err = collect.gpu_to_plan_for(args.gpu, args.dry_run)
    if err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    stored = store.done_keys(store.read(sorted({str(store.DATA_DIR), args.out})), gpu, "main") if gpu else set()
    todo = [j for j in todo_all if j.sample_id not in stored]
    print(f"[measure_modules] {len(todo_all)} module candidates at sizes {', '.join(sizes)}: "
          f"{sum(j.style == 'host_wrapper' for j in todo)} host wrappers and "
          f"{sum(j.style == 'load_inline' for j in todo)} load_inline modules to measure, "
          f"{len(todo_all) - len(todo)} stored", file=sys.stderr, flush=True)
    if args.dry_run:
        for j in todo:
            print(f"  {j.style:13s} {j.task_id:32s} {j.path.relative_to(ROOT.parent)}", file=sys.stderr)
        return 0
    if not gpu:
        print("error: no NVIDIA GPU found (nvidia-smi); use --dry-run to plan", file=sys.stderr)
        return 2
    from analyzer.profile.provenance import provenance

    prov = {k: v for k, v in provenance().items() if k in store.BASE_COLUMNS and k != "date"}
    prov["gpu"] = gpu
    run_id = store.new_part_name("run")[4:-8]
    writer = store.PartWriter(args.out, "h200" if "H200" in gpu else "gpu")
    t0 = time.monotonic()
    done = 0
    try:
        for j in todo:
            if args.time_budget and time.monotonic() - t0 > args.time_budget:
                print(f"[measure_modules] time budget reached; {len(todo) - done} left for the next run", file=sys.stderr)
                break
            ev, wall, err = evaluate(j, args.timeout)
            if ev is None:
                row = store.normalise({"sample_id": j.sample_id, "task_id": j.task_id, "variant": j.path.stem,
                                       "style": j.style, "status": "error", "message": err, "run_s": wall,
                                       "pass": "main", "run_id": run_id, **prov})
            else:
                row = row_of(j, ev, wall, prov, run_id)
            row["date"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            writer.add([row])
            writer.flush()
            done += 1
            t = row.get("time_ms")
            print(f"[measure_modules] {j.style:13s} {j.task_id:32s} {j.path.name:36s} {row['status']:16s} "
                  f"{'-' if t is None or t != t else f'{t:.4f} ms'} ({wall:.0f} s)", file=sys.stderr, flush=True)
    finally:
        writer.flush()
    print(f"[measure_modules] wrote {writer.total} rows to {', '.join(map(str, writer.paths)) or '(nothing)'}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
