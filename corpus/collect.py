"""`python -m corpus collect`: measure the families' samples on this GPU into the store.

Resumable: samples already stored for this GPU are skipped. Rows are written
in chunks, each chunk rewriting only this run's part file, so a killed run
loses at most one chunk.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, TextIO

from . import store


@dataclass(frozen=True)
class Share:
    """Which samples get something extra (counters): all, a fraction, or every k-th."""

    fraction: float = 0.0
    every: int = 0

    @classmethod
    def parse(cls, text: str | None) -> "Share":
        if text is None:
            return cls()
        text = text.strip().lower()
        if text in ("all", "1", "1.0"):
            return cls(fraction=1.0)
        if text.startswith("every-") or text.startswith("every:"):
            k = int(text[6:])
            if k < 1:
                raise ValueError("every-K needs K >= 1")
            return cls(every=k)
        value = float(text)
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"share must be in [0, 1], got {value}")
        return cls(fraction=value)

    def picks(self, sample_id: str, index: int) -> bool:
        if self.every:
            return index % self.every == 0
        if self.fraction >= 1.0:
            return True
        # a hash of the id, so the choice is the same across shards and resumed runs
        return int(hashlib.sha256(sample_id.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF < self.fraction


def parse_shard(text: str | None) -> tuple[int, int]:
    if not text:
        return 0, 1
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard wants i/n, got {text!r}") from None
    if not (n >= 1 and 0 <= i < n):
        raise ValueError(f"--shard wants 0 <= i < n, got {text!r}")
    return i, n


def load_samples(stream: TextIO | None = None) -> list[Any]:
    """Every family's samples and the handwritten ones; a module that fails to import or
    expand is reported and skipped, so one broken family does not stop a collection."""
    import importlib
    import pkgutil

    import corpus.families as fam

    stream = stream or sys.stderr
    out: list[Any] = []
    for info in sorted(pkgutil.iter_modules(fam.__path__), key=lambda i: i.name):
        if info.name == "base" or info.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(f"corpus.families.{info.name}")
            if hasattr(module, "samples"):
                out.extend(module.samples())
        except Exception as exc:
            print(f"[collect] skipping family {info.name}: {type(exc).__name__}: {exc}", file=stream)
    try:
        hand = importlib.import_module("corpus.handwritten")
        if hasattr(hand, "samples"):
            out.extend(hand.samples())
    except ModuleNotFoundError:
        pass
    except Exception as exc:
        print(f"[collect] skipping handwritten: {type(exc).__name__}: {exc}", file=stream)
    return out


def select(samples: Iterable[Any], families: list[str] | None = None, origins: list[str] | None = None,
           sizes: list[str] | None = None, shard: tuple[int, int] = (0, 1)) -> list[Any]:
    """Filter, drop duplicate sample_ids, keep this shard (by a hash of the id: stable)."""
    i, n = shard
    seen: set[str] = set()
    out = []
    for s in samples:
        if families and s.family not in families:
            continue
        if origins and s.origin not in origins:
            continue
        if sizes and s.size not in sizes:
            continue
        sid = s.sample_id
        if sid in seen:
            continue
        seen.add(sid)
        if n > 1 and int(hashlib.sha256(sid.encode()).hexdigest()[:8], 16) % n != i:
            continue
        out.append(s)
    return out


def order_by_problem(samples: list[Any]) -> list[Any]:
    """Samples sharing a problem next to each other (built once); problems taken round-robin
    across families, so a run stopped by its time budget has covered every family evenly."""
    from analyzer.profile.records import problem_key

    groups: dict[str, list[Any]] = {}
    by_family: dict[str, list[str]] = {}
    for s in samples:
        k = problem_key(s.problem, s.problem_kwargs)
        if k not in groups:
            groups[k] = []
            by_family.setdefault(s.family, []).append(k)
        groups[k].append(s)
    out: list[Any] = []
    queues = [list(keys) for keys in by_family.values()]
    while any(queues):
        for q in queues:
            if q:
                out.extend(groups[q.pop(0)])
    return out


def row_for(sample: Any, m: Any, prov: dict[str, Any], pass_: str, run_id: str) -> dict[str, Any]:
    """One store row from a Sample, its Measurement and the run's provenance."""
    row: dict[str, Any] = {
        "sample_id": sample.sample_id, "source_hash": sample.source_hash, "family": sample.family,
        "variant": sample.variant, "size": sample.size, "task_id": sample.task_id,
        "params": json.dumps(sample.params, sort_keys=True, default=str), "origin": sample.origin,
        "style": sample.style, "kernel": sample.kernel,
        "grid_x": sample.grid[0], "grid_y": sample.grid[1], "grid_z": sample.grid[2],
        "block_x": sample.block[0], "block_y": sample.block[1], "block_z": sample.block[2],
        "threads": sample.block[0] * sample.block[1] * sample.block[2], "smem": sample.smem,
        "bytes": int(sample.bytes), "flops": int(sample.flops), "baseline": bool(sample.baseline),
        "status": m.status, "message": m.message, "time_ms": m.time_ms, "p10_ms": m.p10_ms, "p90_ms": m.p90_ms,
        "mean_ms": m.mean_ms, "reps": m.reps, "compile_s": m.compile_s, "cached": m.cached, "run_s": m.run_s,
        "max_abs_err": m.max_abs_err, "max_rel_err": m.max_rel_err, "frac_wrong": m.frac_wrong,
        "registers": m.registers, "local_bytes": m.local_bytes, "static_smem": m.static_smem,
        "spill_stores": m.spill_stores, "spill_loads": m.spill_loads, "stack_bytes": m.stack_bytes,
        "has_counters": bool(m.counters), "pass": pass_, "run_id": run_id,
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    for key in ("gpu", "driver", "cuda_driver", "nvrtc", "arch", "sm_clock_mhz", "mem_clock_mhz", "sm_clock_max_mhz"):
        row[key] = prov.get(key)
    row.update(m.counters)
    return row


class Progress:
    """done/total, ok/failed, rate and ETA on one stderr line per update."""

    def __init__(self, total: int, stream: TextIO | None = None, label: str = "collect") -> None:
        self.total, self.stream, self.label = total, stream or sys.stderr, label
        self.done = self.ok = 0
        self.t0 = time.monotonic()

    def update(self, statuses: Iterable[str]) -> None:
        for s in statuses:
            self.done += 1
            self.ok += s == "ok"
        elapsed = time.monotonic() - self.t0
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else float("nan")
        print(f"[{self.label}] {self.done}/{self.total} ok {self.ok} failed {self.done - self.ok} | "
              f"{rate * 60:.0f}/min | elapsed {elapsed:.0f}s ETA {eta:.0f}s", file=self.stream, flush=True)


def _chunks(items: list[Any], size: int) -> Iterable[list[Any]]:
    for i in range(0, len(items), size):
        yield items[i: i + size]


def measure(profiler: Any, samples: list[Any], prov: dict[str, Any], writer: store.PartWriter, pass_: str,
            run_id: str, counter_ids: set[str], chunk: int, deadline: float, progress: Progress,
            noise: float = 0.0, rng: random.Random | None = None) -> list[dict[str, Any]]:
    """Profile samples chunk by chunk, flushing the writer after each; stops at the deadline.

    noise: after each chunk (and its ncu pass), measure this share of its ok samples a
    second time (pass="noise") while their problems are still on the GPU."""
    from analyzer.profile import Job

    by_id = {s.sample_id: s for s in samples}
    rng = rng or random.Random(0)
    rows_all: list[dict[str, Any]] = []
    for part in _chunks(samples, chunk):
        if time.monotonic() > deadline:
            print(f"[{pass_}] time budget reached; {progress.total - progress.done} samples left for a later run",
                  file=sys.stderr, flush=True)
            break
        jobs = [Job.like(s) for s in part]
        want = {j.id for j in jobs if j.id in counter_ids}
        rows = [row_for(by_id[m.job_id], m, prov, pass_, run_id) for m in profiler.run(jobs, counters=want)]
        writer.add(rows)
        progress.update(r["status"] for r in rows)
        if noise > 0:
            again = [Job.like(by_id[sid]) for sid in chunk_noise_picks(rows, by_id, noise, rng)]
            noise_rows = [row_for(by_id[m.job_id], m, prov, "noise", run_id) for m in profiler.run(again)]
            writer.add(noise_rows)
            rows = rows + noise_rows
        writer.flush()
        rows_all.extend(rows)
        waits = getattr(profiler, "waits", None)
        if waits:
            print(f"[{pass_}] waited so far: " + ", ".join(f"{k} {v:.0f}s" for k, v in waits.items()),
                  file=sys.stderr, flush=True)
    return rows_all


def chunk_noise_picks(rows: list[dict[str, Any]], by_id: dict[str, Any], share: float, rng: random.Random,
                      per_problem: int = 4) -> list[str]:
    """share x the chunk's ok samples, drawn as up to per_problem random samples from random
    problems: each problem re-uploaded costs time, so the draw is clustered by problem."""
    from analyzer.profile.records import problem_key

    by_problem: dict[str, list[str]] = {}
    for r in rows:
        if r["status"] == "ok":
            s = by_id[r["sample_id"]]
            by_problem.setdefault(problem_key(s.problem, s.problem_kwargs), []).append(s.sample_id)
    total = sum(len(v) for v in by_problem.values())
    # a fractional target is rounded up or down at random, so small chunks are not always skipped
    target = int(share * total + rng.random())
    keys = list(by_problem)
    rng.shuffle(keys)
    picked: list[str] = []
    for k in keys:
        if len(picked) >= target:
            break
        ids = by_problem[k]
        picked.extend(rng.sample(ids, min(per_problem, len(ids), target - len(picked))))
    return picked


def noise_picks(samples: list[Any], rows: list[dict[str, Any]], existing: Any, gpu: str, share: float,
                seed: int) -> list[Any]:
    """Samples for the noise pass: enough ok ones (stored before or measured now) without a
    noise row yet that share x all ok samples of this GPU end up measured twice."""
    ok = {r["sample_id"] for r in rows if r["status"] == "ok"}
    have_noise: set[str] = set()
    if len(existing):
        ok |= store.done_keys(existing, gpu, "main", ["ok"])
        have_noise = store.done_keys(existing, gpu, "noise")
    wanted = max(0, round(share * len(ok)) - len(have_noise & ok))
    candidates = sorted((ok - have_noise) & {s.sample_id for s in samples})
    picked = set(random.Random(seed).sample(candidates, min(wanted, len(candidates))))
    return order_by_problem([s for s in samples if s.sample_id in picked])


def gpu_to_plan_for(named: str | None, dry_run: bool) -> tuple[str, str]:
    """(GPU name, error): this machine's GPU; without one, the GPU `named` to plan a --dry-run against."""
    from analyzer.profile import toolkit

    row = toolkit.nvidia_smi("name")
    gpu = row[0] if row else ""
    if named and not gpu:
        if not dry_run:
            return "", "--gpu only plans (--dry-run); measuring needs the GPU itself"
        gpu = named
    return gpu, ""


def profiled_run(out: str | Path, gpu: str, timeout_s: float, label: str, body: Any, t0: float,
                 needed: bool = True) -> tuple[int, store.PartWriter]:
    """One profiler session writing one part file under `out`: body(profiler, provenance, writer)
    measures. The writer is flushed whatever happens, so an interrupted run keeps its rows.
    needed=False: nothing to measure, no profiler is started. Returns (exit code, writer)."""
    from analyzer.profile import Profiler, Settings
    from analyzer.profile.worker import WorkerUnavailable

    writer = store.PartWriter(out, "h200" if "H200" in gpu else "gpu")
    try:
        if needed:
            with Profiler(Settings(timeout_s=timeout_s), log=sys.stderr) as prof:
                prov = prof.provenance()
                prov["arch"] = prof.worker().info.get("arch", "")
                print(f"[{label}] provenance: " + json.dumps(prov), file=sys.stderr, flush=True)
                body(prof, prov, writer)
    except WorkerUnavailable as exc:
        writer.flush()
        print(f"error: {exc}", file=sys.stderr)
        return 2, writer
    except KeyboardInterrupt:
        writer.flush()
        print(f"[{label}] interrupted; rows so far are stored", file=sys.stderr)
        return 130, writer
    writer.flush()
    print(f"[{label}] wrote {writer.total} rows to {', '.join(str(p) for p in writer.paths) or '(nothing)'} "
          f"in {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    return 0, writer


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m corpus collect", description=__doc__.splitlines()[0])
    ap.add_argument("--family", action="append", help="only this family (repeatable)")
    ap.add_argument("--origin", action="append", choices=["family", "handwritten"])
    ap.add_argument("--size", action="append", help="only this size label (repeatable)")
    ap.add_argument("--limit", type=int, default=0, help="at most this many new samples")
    ap.add_argument("--shard", help="i/n: this run takes the i-th of n disjoint shares")
    ap.add_argument("--counters", nargs="?", const="all", default=None,
                    help="re-run under ncu: 'all' (default when given), a fraction like 0.3, or every-K")
    ap.add_argument("--noise", type=float, default=0.0,
                    help="re-measure this share of the ok samples (pass=noise): after each chunk, or, with nothing "
                         "new to measure, a top-up pass over the stored ok samples")
    ap.add_argument("--out", default=str(store.DATA_DIR), help="folder for the new part files")
    ap.add_argument("--time-budget", type=float, default=0.0, help="seconds; start no chunk after this (0: none)")
    ap.add_argument("--noise-budget", type=float, default=0.0,
                    help="seconds for the noise pass, counted from its start (0: the --time-budget deadline)")
    ap.add_argument("--chunk", type=int, default=100, help="samples per chunk (one store flush each)")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per sample once launched")
    ap.add_argument("--retry-failed", action="store_true", help="also re-measure stored samples that did not end ok")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dry-run", action="store_true", help="print what would be measured and stop")
    ap.add_argument("--gpu", help="with --dry-run on a machine without a GPU: plan against this GPU's stored rows "
                                  "(e.g. 'NVIDIA H200')")
    args = ap.parse_args(argv)

    try:
        counters = Share.parse(args.counters)
        shard = parse_shard(args.shard)
        if not 0.0 <= args.noise <= 1.0:
            raise ValueError("--noise must be in [0, 1]")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    samples = select(load_samples(), args.family, args.origin, args.size, shard)
    gpu, err = gpu_to_plan_for(args.gpu, args.dry_run)
    if err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    dirs = {str(store.DATA_DIR), str(Path(args.out))}
    existing = store.read(sorted(dirs))
    skip = store.done_keys(existing, gpu, "main", None if not args.retry_failed else ["ok"]) if gpu else set()
    todo_all = samples
    todo = [s for s in samples if s.sample_id not in skip]
    todo = order_by_problem(todo)
    if args.limit:
        todo = todo[: args.limit]
    counter_ids = {s.sample_id for i, s in enumerate(todo) if counters.picks(s.sample_id, i)}
    stored = sum(1 for s in samples if s.sample_id in skip)
    print(f"[collect] {len(samples)} samples selected, {stored} already stored for {gpu or 'this GPU'}, "
          f"{len(todo)} to measure, {len(counter_ids)} with counters", file=sys.stderr, flush=True)
    if args.dry_run or not (todo or args.noise):
        return 0
    if not gpu:
        print("error: no NVIDIA GPU found (nvidia-smi)", file=sys.stderr)
        return 2

    t0 = time.monotonic()
    deadline = t0 + args.time_budget if args.time_budget else float("inf")
    run_id = store.new_part_name("run")[4:-8]

    def body(prof: Any, prov: dict[str, Any], writer: store.PartWriter) -> None:
        rows = measure(prof, todo, prov, writer, "main", run_id, counter_ids, args.chunk, deadline,
                       Progress(len(todo)), noise=args.noise, rng=random.Random(args.seed))
        if args.noise > 0 and not todo:
            # nothing new to measure: top the noise pass up to the share of all stored ok samples
            again = noise_picks(todo_all, rows, existing, gpu, args.noise, args.seed)
            noise_deadline = time.monotonic() + args.noise_budget if args.noise_budget else deadline
            measure(prof, again, prov, writer, "noise", run_id, set(), args.chunk, noise_deadline,
                    Progress(len(again), label="noise"))

    code, _ = profiled_run(args.out, gpu, args.timeout, "collect", body, t0)
    return code
