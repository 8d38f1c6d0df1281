"""`python -m rl.measure`: measure the candidates of RL tasks on this GPU into the corpus store.

Each selected task's candidates (for `c` tasks: the naive port and our variants in
rl/suites/c/variants) are profiled in chunks by corpus.collect's `measure` (the same rows,
provenance and resumability as `python -m corpus collect`): samples already stored for this
GPU in corpus/data or --out are skipped, and a killed run loses at most one chunk. Then the
references are timed and written to a JSON file beside the part file (PART.KIND_reference.json),
so the speedups over them have their denominator from the same machine: for `c` tasks the -O3 C
reference on this machine's CPU; for `torch` tasks (the candidates are those of problems with a
raw-kernel port, rl/suites/torch/ports) PyTorch eager and torch.compile of every selected task
on this GPU, each written as soon as it is timed, and those already stored for this GPU skipped.

    python -m rl.measure --kind c --size small --size medium --counters 0.3 --time-budget 420
    python -m rl.measure --kind c --task c/gemm --dry-run --gpu "NVIDIA H200"
    python -m rl.measure --kind torch --counters 0.5 --time-budget 540
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any, Iterable, Sequence, TextIO

from corpus import collect, store

# Seconds per sample on the H200 in earlier collections (compile + launch + check, ncu on top
# for a share): only for the dry run's estimate, never a promise.
EST_S_PLAIN = 0.35
EST_S_COUNTERS = 1.5


def select_tasks(tasks: dict[str, Any], kind: str | None = None, prefixes: Sequence[str] = (),
                 sizes: Sequence[str] = ()) -> list[Any]:
    """Tasks of this kind whose id starts with one of the prefixes ("c/gemm", or "gemm" within
    the kind) and whose size is one of `sizes` (all when empty), in id order."""
    out = []
    for tid in sorted(tasks):
        t = tasks[tid]
        if kind and t.kind != kind:
            continue
        if prefixes and not any(tid.startswith(p) or tid.startswith(f"{t.kind}/{p}") for p in prefixes):
            continue
        if sizes and t.size not in sizes:
            continue
        out.append(t)
    return out


def candidates(tasks: Iterable[Any]) -> list[Any]:
    """Every candidate of the tasks (baseline first), each sample_id once."""
    seen: set[str] = set()
    out = []
    for t in tasks:
        for s in t.candidates or (t.baseline,):
            if s is not None and s.sample_id not in seen:
                seen.add(s.sample_id)
                out.append(s)
    return out


def plan(samples: list[Any], stored: set[str], counters: collect.Share) -> tuple[list[Any], set[str]]:
    """(samples to measure, ordered so a time budget covers every task evenly; the ids to run under ncu).
    Samples of one problem (task and size) stay together, since each problem is built once; the
    problems go round-robin over the tasks, each task's smaller sizes first."""
    todo = collect.order_by_problem(sorted((s for s in samples if s.sample_id not in stored), key=lambda s: s.bytes))
    return todo, {s.sample_id for i, s in enumerate(todo) if counters.picks(s.sample_id, i)}


def estimate_s(n: int, n_counters: int) -> float:
    return n * EST_S_PLAIN + n_counters * EST_S_COUNTERS


def print_plan(tasks: list[Any], todo: list[Any], counter_ids: set[str], stored: set[str], gpu: str,
               stream: TextIO) -> None:
    """One line per task (candidates, stored, to measure, with counters), then the totals."""
    todo_ids = {s.sample_id for s in todo}
    for t in tasks:
        ids = [s.sample_id for s in t.candidates or (t.baseline,) if s is not None]
        print(f"  {t.id:<28} {len(ids):>3} candidates  {sum(i in stored for i in ids):>3} stored  "
              f"{sum(i in todo_ids for i in ids):>3} to measure  {sum(i in counter_ids for i in ids):>3} with counters",
              file=stream)
    print(f"[measure] {len(tasks)} tasks, {len(todo)} samples to measure on {gpu or 'this GPU'}, "
          f"{len(counter_ids)} with counters; about {estimate_s(len(todo), len(counter_ids)):.0f} s of GPU time "
          f"(estimate), plus the reference timings", file=stream, flush=True)


def time_references(tasks: list[Any], deadline: float, stream: TextIO, reps: int = 5,
                    done: set[str] = frozenset(), on_timing: Any = None) -> list[dict[str, Any]]:
    """The reference times of every selected task, until the deadline: the -O3 C reference on
    this CPU for c tasks; PyTorch eager and torch.compile on this GPU for torch tasks (one per
    problem and size, skipping the ids in `done`). `on_timing(list)` is called after each one, so
    a run killed midway keeps what it timed."""
    from rl.tasks.c_kind import c_reference_timing
    from rl.tasks.c_ref import CReferenceError
    from rl.tasks.torch_ref import as_record, time_reference

    out: list[dict[str, Any]] = []
    for t in tasks:
        if t.kind not in ("c", "torch") or t.id in done:
            continue
        if time.monotonic() > deadline:
            print(f"[measure] time budget reached; reference timings left out from {t.id} on", file=stream)
            break
        if t.kind == "c":
            try:
                tm = c_reference_timing(t, reps=reps)
            except CReferenceError as exc:
                print(f"[measure] {t.id}: C reference failed: {exc}", file=stream)
                continue
            out.append({"task_id": t.id, **dataclasses.asdict(tm)})
            print(f"[measure] C reference {t.id}: {tm.ms:.3f} ms ({tm.cpu})", file=stream, flush=True)
        else:
            tt = time_reference(t, reps=max(reps, 10))
            out.append(as_record(tt))
            fmt = lambda v: "-" if v is None else f"{v:.4f} ms"  # noqa: E731
            print(f"[measure] torch reference {t.id}: eager {fmt(tt.eager_ms)}, compile {fmt(tt.compile_ms)}"
                  f"{' (' + '; '.join(tt.notes) + ')' if tt.notes else ''}", file=stream, flush=True)
        if on_timing is not None:
            on_timing(out)
    return out


def reference_path(writer: store.PartWriter | None, out_dir: Path, run_id: str, kind: str = "c") -> Path:
    """Beside the run's (first) part file: PART.KIND_reference.json; else KIND_reference-RUN.json."""
    if writer is not None and writer.paths:
        p = writer.paths[0]
        return p.with_name(p.name[: -len(".parquet")] + f".{kind}_reference.json")
    return out_dir / f"{kind}_reference-{run_id}.json"


def write_references(path: Path, timings: list[dict[str, Any]], run_id: str, gpu: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps({"run_id": run_id, "gpu": gpu, "timings": timings}, indent=1) + "\n")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rl.measure", description=__doc__.splitlines()[0])
    ap.add_argument("--kind", default="c", help="task kind (default c)")
    ap.add_argument("--task", action="append", default=[], help="only task ids starting with this (repeatable)")
    ap.add_argument("--size", action="append", default=[], help="only this size (repeatable)")
    ap.add_argument("--counters", default=None, help="share run under ncu: a fraction like 0.3, 'all', or every-K")
    ap.add_argument("--out", default=str(store.DATA_DIR), help="folder for the new part file (default corpus/data)")
    ap.add_argument("--time-budget", type=float, default=0.0,
                    help="seconds for the whole run; no chunk starts after budget - reference reserve, no C timing "
                         "after the budget (0: none). A chunk under way finishes, so leave a chunk's time spare")
    ap.add_argument("--reference-reserve", type=float, default=60.0,
                    help="seconds of --time-budget kept for the C reference timings after the GPU part (default 60)")
    ap.add_argument("--chunk", type=int, default=25, help="samples per chunk (one store flush each)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per sample once launched")
    ap.add_argument("--reference-reps", type=int, default=5,
                    help="runs per C reference timing, at least 10 for torch's eager/compile (0: skip them)")
    ap.add_argument("--dry-run", action="store_true", help="print the plan and stop (no GPU needed)")
    ap.add_argument("--gpu", help="with --dry-run on a machine without a GPU: plan against this GPU's stored rows")
    args = ap.parse_args(argv)

    try:
        counters = collect.Share.parse(args.counters)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from rl.tasks import all_tasks

    t0 = time.monotonic()
    deadline = t0 + args.time_budget if args.time_budget else float("inf")
    tasks = select_tasks(all_tasks([args.kind]), args.kind, args.task, args.size)
    if not tasks:
        print(f"error: no {args.kind} tasks match --task {args.task or '(any)'} --size {args.size or '(any)'}",
              file=sys.stderr)
        return 2
    gpu, err = collect.gpu_to_plan_for(args.gpu, args.dry_run)
    if err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    existing = store.read(sorted({str(store.DATA_DIR), str(Path(args.out))}))
    stored = store.done_keys(existing, gpu, "main") if gpu else set()
    todo, counter_ids = plan(candidates(tasks), stored, counters)
    print_plan(tasks, todo, counter_ids, stored, gpu, sys.stderr)
    if args.dry_run:
        return 0
    if not gpu:
        print("error: no NVIDIA GPU found (nvidia-smi); use --dry-run to plan", file=sys.stderr)
        return 2

    # the GPU part starts no chunk after budget - reserve, so the reference timings keep their share
    times_ref = args.reference_reps > 0 and any(t.kind in ("c", "torch") for t in tasks)
    gpu_deadline = deadline - (max(0.0, args.reference_reserve) if times_ref else 0.0)
    run_id = store.new_part_name("run")[4:-8]

    def body(prof: Any, prov: dict[str, Any], writer: store.PartWriter) -> None:
        collect.measure(prof, todo, prov, writer, "main", run_id, counter_ids, args.chunk, gpu_deadline,
                        collect.Progress(len(todo), label="measure"))

    code, writer = collect.profiled_run(args.out, gpu, args.timeout, "measure", body, t0, needed=bool(todo))
    if code:
        return code
    if times_ref:
        done: set[str] = set()
        if args.kind == "torch":        # torch references already timed on this GPU are kept
            from rl.tasks.torch_ref import stored_timings
            done = {k for k, v in stored_timings(sorted({str(store.DATA_DIR), str(Path(args.out))}), gpu).items()
                    if v.get("eager_ms") is not None}
        path = reference_path(writer, Path(args.out), run_id, args.kind)
        timings = time_references(tasks, deadline, sys.stderr, args.reference_reps, done,
                                  lambda got: write_references(path, got, run_id, gpu))
        if timings:
            write_references(path, timings, run_id, gpu)
        print(f"[measure] {len(timings)} reference timings in {path}"
              f"{f' ({len(done)} already stored)' if done else ''}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
