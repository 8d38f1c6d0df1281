"""How fast the profiler measures: samples per minute, compile vs run time, one measurement end to end.

Two sources, both real:
  --run N       measure N corpus samples now (a fresh cubin cache, so compiles count), on this GPU;
  --store DIR   read the rows a collection wrote (their compile_s, run_s and dates).
Writes bench/results/profiler_speed.json and prints a table.

    python bench/profiler_speed.py --run 200 --store corpus/data
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RESULT = ROOT / "bench" / "results" / "profiler_speed.json"


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))]


def measure_now(n: int, counters_share: float) -> dict:
    """Profile n samples spread over the families with a cold cubin cache; time the whole run."""
    from analyzer.profile import Job, Profiler, Settings
    from analyzer.profile.selftest import gather_job
    from corpus.collect import load_samples, order_by_problem, select

    everything = load_samples() if n else []
    samples = order_by_problem(select(everything, shard=(0, max(1, len(everything) // max(1, n)))))[:n]
    jobs = [Job.like(s) for s in samples]
    with tempfile.TemporaryDirectory() as cache:
        settings = Settings(cache_dir=cache)
        with Profiler(settings) as prof:
            t_start = time.perf_counter()
            prof.worker()
            t_worker = time.perf_counter() - t_start
            # one real measurement end to end on a warm profiler: compile + problem + check + time
            single = gather_job("ok", n=1 << 24)
            t0 = time.perf_counter()
            one = list(prof.run([single]))[0]
            t_one = time.perf_counter() - t0
            t0 = time.perf_counter()
            list(prof.run([single]))  # again: cubin and problem cached, only the GPU work is left
            t_one_warm = time.perf_counter() - t0
            t0 = time.perf_counter()
            before = dict(prof.waits)
            ms = list(prof.run(jobs)) if jobs else []
            wall = time.perf_counter() - t0
            waits = {f"wait_{k}_s": prof.waits[k] - before[k] for k in prof.waits}
            counted = [j.id for j in jobs[: max(0, int(counters_share * len(jobs)))]]
            t_cold = t_worker + t_one
            t_ncu = float("nan")
            with_counters = 0
            if counted:
                t0 = time.perf_counter()
                got = list(prof.run([j for j in jobs if j.id in set(counted)], counters=set(counted)))
                t_ncu = time.perf_counter() - t0
                with_counters = sum(bool(m.counters) for m in got)
    one_only = {"worker_start_s": t_worker, "first_measurement_with_worker_start_s": t_cold,
                "one_measurement_s": t_one, "one_measurement_cached_s": t_one_warm,
                "one_measurement_status": one.status, "one_measurement_kernel_ms": one.time_ms}
    if not jobs:
        return one_only
    compile_s = [m.compile_s for m in ms if not m.cached and m.compile_s == m.compile_s]
    run_s = [m.run_s for m in ms if m.run_s == m.run_s]
    return {
        "samples": len(ms), "ok": sum(m.ok for m in ms), "wall_s": wall,
        "samples_per_min": 60 * len(ms) / wall if ms else float("nan"),
        "worker_start_s": t_worker, "first_measurement_with_worker_start_s": t_cold,
        "one_measurement_s": t_one, "one_measurement_cached_s": t_one_warm, "one_measurement_status": one.status,
        "one_measurement_kernel_ms": one.time_ms,
        "distinct_compiles": len(compile_s),
        "compile_s_median": statistics.median(compile_s) if compile_s else float("nan"),
        "compile_s_p90": _pct(compile_s, 0.9),
        "compile_cpu_s_total": sum(compile_s),
        "run_s_median": statistics.median(run_s) if run_s else float("nan"),
        "run_s_p90": _pct(run_s, 0.9), "run_s_total": sum(run_s),
        "counters_samples": len(counted), "counters_with_values": with_counters, "counters_wall_s": t_ncu,
        "counters_s_per_sample": t_ncu / len(counted) if counted else float("nan"),
        **waits,
    }


def from_store(dirs: list[str]) -> dict:
    """Throughput of past collection runs from their own rows (dates are per flushed chunk)."""
    import pandas as pd

    from corpus import store

    df = store.read(dirs, dedupe=False)
    if not len(df):
        return {}
    out = {}
    for run_id, g in df.groupby("run_id"):
        dates = pd.to_datetime(g["date"])
        span = (dates.max() - dates.min()).total_seconds()
        fresh = g[~g["cached"].astype(bool)]
        out[str(run_id)] = {
            "rows": int(len(g)), "ok": int((g["status"] == "ok").sum()),
            "with_counters": int(g["has_counters"].astype(bool).sum()),
            "span_s": span, "rows_per_min_between_first_and_last_flush": 60 * len(g) / span if span else float("nan"),
            "compile_s_median": float(fresh["compile_s"].median()) if len(fresh) else float("nan"),
            "run_s_median": float(g["run_s"].median()), "run_s_total": float(g["run_s"].sum()),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", type=int, default=0, help="measure this many corpus samples now (needs a GPU)")
    ap.add_argument("--one", action="store_true", help="only the end-to-end cost of one measurement (needs a GPU)")
    ap.add_argument("--counters", type=float, default=0.1, help="share of those re-run under ncu")
    ap.add_argument("--store", action="append", default=[], help="part-file folder(s) of a collection")
    ap.add_argument("--out", default=str(RESULT))
    args = ap.parse_args(argv)
    result: dict = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if args.run or args.one:
        from analyzer.profile.provenance import provenance

        result["provenance"] = provenance()
        result["live"] = measure_now(args.run if not args.one else 0, args.counters)
    if args.store:
        result["collection_runs"] = from_store(args.store)
    if len(result) == 1:
        print("nothing to do: give --run N and/or --store DIR", file=sys.stderr)
        return 2
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2, default=float)
    if "live" in result:
        live = result["live"]
        print(f"{'metric':40s} value")
        for key, value in live.items():
            print(f"{key:40s} {value:.4g}" if isinstance(value, float) else f"{key:40s} {value}")
    for run_id, r in result.get("collection_runs", {}).items():
        print(f"run {run_id}: {r['rows']} rows, {r['rows_per_min_between_first_and_last_flush']:.0f}/min, "
              f"compile median {r['compile_s_median']:.3f} s, run median {r['run_s_median']:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
