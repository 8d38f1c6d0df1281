"""Instructions per lint file and per reward call, counted by valgrind (callgrind): the stable
measure of the analyzer's and the reward's cost on a machine whose clock speed swings (the 2-core
dev VM's has moved 3x between days, more than most changes are worth).

    python bench/instruction_count.py [--files 40] [--host-files 40] [--calls 300] [--root PATH]

Workloads, fixed (seeded, no timing involved):
- lint: the first `--files` of bench/lint_speed.py's 200 files (shuffled with seed 1), each through
  `lint_source` once to warm up, then once counted;
- lint with host code: the same for the first `--host-files` of its second set (files with host code
  in the public files' proportions, bench/realistic_files.py);
- reward: `--calls` of bench/surrogate_speed.py's 1,000 candidates, those with the median source
  lengths, each through `rewardmodel.reward.reward` (no ptxas, the default model) once to warm up,
  then once counted.
Counted results are dropped as they come (since the fifteenth session: kept, the collector's passes
over them were ~7% of the reward count).
Only the counted passes are collected: they run inside `itertools.starmap`, whose C `next` is
callgrind's toggle. OpenBLAS runs on one thread, under PYTHONHASHSEED=0. `--root` measures another checkout (its modules
built in place), for a comparison with the same workload.
Writes bench/results/instruction_count.json (or --out) and prints a table. Needs valgrind.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve()


def _workload(kind: str, root: Path, n: int) -> None:
    """Run inside valgrind: warm up, then the counted pass inside itertools.starmap."""
    import collections
    import gc
    import itertools
    import random

    sys.path.insert(0, str(HERE.parent))
    import lint_speed
    import surrogate_speed

    # the bench modules put their own checkout first on the path: the one measured goes before it
    sys.path.insert(0, str(root))
    if kind in ("lint", "lint_host"):
        from analyzer.lint import lint_source

        pack, sources = lint_speed.pack, lint_speed.sources

        files = pack(sources(), 150, 200) if kind == "lint" else lint_speed.with_host_code(200)
        random.Random(1).shuffle(files)
        jobs = [(f, f"f{i}.cu") for i, f in enumerate(files[:n])]
        fn = lint_source
    else:
        from rewardmodel.dataset import sample_args
        from rewardmodel.features import Problem
        from rewardmodel.reward import reward
        from rewardmodel.surrogate import load_default

        model = load_default()
        cands = sorted(surrogate_speed.candidates(1000), key=lambda s: (len(s.source), s.family, s.variant))
        lo = max(0, (len(cands) - n) // 2)

        def fn(s):
            return reward(s.source, s.kernel, grid=s.grid, block=s.block, smem=s.smem, args=sample_args(s),
                          problem=Problem(s.bytes, s.flops), model=model, ptxas=False, baseline_ms=0.1)
        jobs = [(s,) for s in cands[lo:lo + n]]
    for j in jobs:
        fn(*j)
    gc.collect()
    # results dropped as they come (as a linter or a trainer drops them): kept, the collector's
    # passes over them were ~7% of what the reward workload counted, and moved with their size
    collections.deque(itertools.starmap(fn, jobs), maxlen=0)
    from analyzer import _fresh

    if not str(Path(_fresh.__file__).resolve()).startswith(str(root)):
        raise SystemExit(f"measured {_fresh.__file__}, not the checkout {root}")
    modules = _fresh.compiled_modules()
    print(json.dumps({"count": len(jobs), "compiled": sum(modules.values()), "modules": len(modules)}))


def _count(kind: str, root: Path, n: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=starmap_next",
               f"--callgrind-out-file={tmp}/cg.out", sys.executable, str(HERE), "--inner", kind,
               "--root", str(root), "--n", str(n)]
        # a fixed hash seed: str hashes order the sets and dict probes the analysis makes, and with
        # a random seed the same code counted 1,355 M and 1,409 M instructions on two runs
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONHASHSEED="0")
        t0 = time.perf_counter()
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - t0
    m = re.search(r"I\s+refs:\s+([\d,]+)", p.stderr)
    if p.returncode != 0 or m is None:
        raise SystemExit(f"instruction_count: the {kind} run failed (exit {p.returncode}): "
                         f"{(p.stderr.strip().splitlines() or ['no output'])[-1]}")
    info = json.loads(p.stdout.strip().splitlines()[-1])
    total = int(m.group(1).replace(",", ""))
    return {"instructions": total, "per_item": total / info["count"], "items": info["count"],
            "compiled_modules": f"{info['compiled']} of {info['modules']}", "wall_s": round(wall, 1)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=40, help="lint files counted (0: none)")
    ap.add_argument("--host-files", type=int, default=40, help="lint files with host code counted (0: none)")
    ap.add_argument("--calls", type=int, default=300, help="reward calls counted (0: none)")
    ap.add_argument("--root", default=str(HERE.parent.parent), help="the checkout to measure")
    ap.add_argument("--out", default=str(HERE.parent / "results" / "instruction_count.json"))
    ap.add_argument("--inner", choices=["lint", "lint_host", "reward"], help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)
    root = Path(ns.root).resolve()
    if ns.inner:
        _workload(ns.inner, root, ns.n)
        return 0
    if shutil.which("valgrind") is None:
        print("instruction_count: valgrind is not installed (Debian: apt install valgrind)", file=sys.stderr)
        return 2
    rows = {}
    # a count of 0 leaves that row out (a before/after comparison of one workload)
    for kind, n in (("lint", ns.files), ("lint_host", ns.host_files), ("reward", ns.calls)):
        if n:
            rows[kind] = _count(kind, root, n)
    top = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    git = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%h"], capture_output=True, text=True)
    # a tree that is not itself a checkout (an unpacked archive inside one) has no commit of its own
    commit = git.stdout.strip() if top.stdout.strip() and Path(top.stdout.strip()).resolve() == root else None
    out = {"root": str(root), "commit": commit or None, "python": sys.version.split()[0],
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **rows}
    labels = {"lint": "lint_source, one file", "lint_host": "lint_source, one file with host code",
              "reward": "reward call (no ptxas)"}
    print(f"{'workload':38s} {'instructions/item':>18s} {'items':>6s}  compiled")
    for kind, row in rows.items():
        print(f"{labels[kind]:38s} {row['per_item'] / 1e6:16.2f} M {row['items']:6d}  {row['compiled_modules']}")
    Path(ns.out).parent.mkdir(parents=True, exist_ok=True)
    Path(ns.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {ns.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
