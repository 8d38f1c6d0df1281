"""`python -m rl.tasks.torch_prebuild [-j N] CANDIDATE.py ...`: build load_inline candidates in parallel.

A load_inline extension takes ~55 s to build cold on the 16-core H200 machine (nvcc and the torch
headers), and `evaluate_torch` builds one candidate at a time. Building every candidate first,
N at a time, each in a process of its own (a candidate runs its module to reach load_inline, and
whatever it patches stays in that process), fills the build cache (`$CUDAPERF_CACHE/
torch_extensions`, keyed by source hash) that the evaluations then load from. One line per
candidate; exit 0 when every one built (or had nothing to build), 1 otherwise.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context


def build_one(path: str) -> tuple[str, bool, str, float]:
    """(path, ok, what, seconds) for one candidate, built in this process."""
    t0 = time.perf_counter()
    from .torch_trace import BuildError, CandidateError, load_candidate

    try:
        cand = load_candidate(path, build=True)
    except BuildError as exc:
        return path, False, str(exc), time.perf_counter() - t0
    except CandidateError as exc:
        return path, False, str(exc), time.perf_counter() - t0
    names = ", ".join(b.built_name for b in cand.builds if b.built_name) or "nothing to build"
    return path, True, names, time.perf_counter() - t0


def prebuild(paths: list[str], jobs: int, stream=None) -> int:
    """Build every candidate, `jobs` at a time; returns the number that failed."""
    stream = stream or sys.stdout
    failed = 0
    # each build's ninja gets a share of the cores, so N parallel builds do not oversubscribe them
    os.environ.setdefault("MAX_JOBS", str(max(1, (os.cpu_count() or 2) // max(1, jobs))))
    with ProcessPoolExecutor(max_workers=max(1, jobs), mp_context=get_context("spawn")) as pool:
        futures = [pool.submit(build_one, p) for p in paths]
        for f in as_completed(futures):
            path, ok, what, secs = f.result()
            failed += not ok
            print(f"{'built ' if ok else 'FAILED'} {path} ({secs:.1f} s): {what}", file=stream, flush=True)
    return failed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rl.tasks.torch_prebuild", description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", help="candidate .py files")
    ap.add_argument("-j", "--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2))
    ns = ap.parse_args(argv)
    missing = [p for p in ns.paths if not os.path.isfile(p)]
    if missing:
        print(f"error: {missing[0]}: no such file", file=sys.stderr)
        return 2
    return 1 if prebuild(ns.paths, ns.jobs) else 0


if __name__ == "__main__":
    raise SystemExit(main())
