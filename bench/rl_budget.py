"""How much GPU time does the surrogate save an RL run, and what does it cost in kernel quality?

Three arms, same tasks, same seeds, on a CPU with `rl.oracle.Replay` (real H200 answers from
the measured corpus, each with its recorded compile + run cost):
  all_real       every new candidate is measured (budget 1.0)
  surr10_recal   the surrogate answers, <= 10% of new candidates measured, refit every K answers
  surr10_frozen  the same, never refit
The surrogate starts without the run's families (it has never seen these kernels). For each
arm: the mean true speedup over the baseline of the best kernel the run found per task (true:
the measured corpus, whichever way the run saw it), real measurements, GPU-seconds, and the
surrogate's rank correlation with the real answers it was checked against.

    python bench/rl_budget.py [--seeds 3] [--seed-offset 0] [--steps 40] [--quick]
Writes bench/results/rl_budget.json and prints a table.
"""
from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rl.config import TrainConfig  # noqa: E402
from rl.scheduler import SchedulerConfig  # noqa: E402

# Families the run trains on (the surrogate is fitted on the others): a memory-bound mix with
# layout choices (transpose, stencils), strategy switches (reduction, softmax, scan) and tiling (matmul).
FAMILIES = ("transpose", "reduction", "softmax", "matmul", "stencil2d", "layernorm", "histogram", "gather")

# reserve: half the budget is kept for the end of the run, to measure the candidates the run scored
# but never measured whose expected improvement over the task's best measured kernel is largest
# (rl.train._confirm, confirm_by="value"); with budget 1 every candidate is measured as it comes, so
# it changes nothing for the all-real arm
ARMS = {
    "all_real": SchedulerConfig(budget=1.0, recalibrate=False, reserve=0.5),
    "surr10_recal": SchedulerConfig(budget=0.1, recalibrate=True, refit_every=4, update_mode="refit", reserve=0.5),
    # the same scheduler, per-task offset and confirmation pass, the model never refitted
    "surr10_frozen": SchedulerConfig(budget=0.1, recalibrate=False, reserve=0.5),
}


def run_arm(name: str, sched: SchedulerConfig, seed: int, base: TrainConfig, oracle, model_path: Path, out: Path) -> dict:
    from rewardmodel.surrogate import Surrogate
    from rl.train import Judge, train

    cfg = replace(base, name=f"{name}-s{seed}", seed=seed, scheduler=replace(sched, seed=seed), plot=False)
    model = Surrogate.load(model_path)          # a fresh copy: refits must not leak between arms
    t0 = time.time()
    r = train(cfg, oracle=oracle, model=model, judge=Judge(oracle), out_dir=out / cfg.name, progress=False,
              log=lambda m: None)
    refits = r.summary["refits"]
    return {"arm": name, "seed": seed, "best_speedup": r.summary["best_speedup_mean"],
            "best_gmean": r.summary["best_speedup_gmean"], "oracle_best": r.summary["oracle_best_mean"],
            "eval_end": r.summary["curve_end"], "real": r.summary["real_answers"], "gpu_s": r.summary["gpu_s"],
            "distinct": r.summary["distinct_candidates"], "real_share": r.summary["real_share"],
            "spearman_before": [e["spearman_before"] for e in refits],
            "spearman_after": [e.get("spearman_after") for e in refits], "wall_s": time.time() - t0}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--seed-offset", type=int, default=0,
                    help="first seed (seeds offset .. offset + seeds - 1): fresh seeds to check a setting chosen on others")
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--max-tasks", type=int, default=24)
    ap.add_argument("--quick", action="store_true", help="1 seed, 10 steps, 8 tasks (a smoke run)")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "rl_budget.json"))
    ns = ap.parse_args(argv)
    if ns.quick:
        ns.seeds, ns.steps, ns.max_tasks = 1, 10, 8

    from rl.oracle import Replay
    from rl.train import build_surrogate, select_tasks

    oracle = Replay()
    base = TrainConfig(name="budget", families=FAMILIES, max_tasks=ns.max_tasks, steps=ns.steps, tasks_per_step=4,
                       group_size=8, turns=4, eval_every=0, surrogate="holdout")
    tasks = select_tasks(base, allowed=oracle.has)
    t0 = time.time()
    model = build_surrogate(base, tasks, log=lambda m: print(m, file=sys.stderr))
    model_path = Path("/tmp") / f"rl_budget_model_{int(t0)}.zip"
    model.save(model_path)
    out_dir = Path("/tmp") / "rl_budget_runs"
    rows = []
    seeds = list(range(ns.seed_offset, ns.seed_offset + ns.seeds))
    for seed in seeds:
        for arm, sched in ARMS.items():
            row = run_arm(arm, sched, seed, base, oracle, model_path, out_dir)
            rows.append(row)
            print(f"  seed {seed} {arm:14s} best {row['best_speedup']:.3f}x  real {row['real']:4d}  "
                  f"GPU-s {row['gpu_s']:.1f}  ({row['wall_s']:.0f}s)", file=sys.stderr, flush=True)
    model_path.unlink(missing_ok=True)

    def agg(arm, key):
        return float(np.mean([r[key] for r in rows if r["arm"] == arm]))

    ref_sp, ref_gpu = agg("all_real", "best_speedup"), agg("all_real", "gpu_s")
    table = []
    for arm in ARMS:
        sp, gpu = agg(arm, "best_speedup"), agg(arm, "gpu_s")
        before = [v for r in rows if r["arm"] == arm for v in r["spearman_before"] if v is not None and math.isfinite(v)]
        after = [v for r in rows if r["arm"] == arm for v in r["spearman_after"] if v is not None and math.isfinite(v)]
        table.append({"arm": arm, "best_speedup": sp, "best_gmean": agg(arm, "best_gmean"),
                      "of_all_real_speedup": sp / ref_sp, "real": agg(arm, "real"), "gpu_s": gpu,
                      "of_all_real_gpu_s": gpu / ref_gpu, "real_share": agg(arm, "real_share"),
                      "refit_spearman_before": float(np.mean(before)) if before else None,
                      "refit_spearman_after": float(np.mean(after)) if after else None,
                      "oracle_best": agg(arm, "oracle_best")})
    hdr = f"{'arm':14s} {'best speedup':>12s} {'% of all-real':>13s} {'real runs':>9s} {'GPU-s':>7s} {'% GPU-s':>8s} {'rho before/after refit':>22s}"
    print(hdr)
    print("-" * len(hdr))
    for t in table:
        rho = (f"{t['refit_spearman_before']:.2f}/{t['refit_spearman_after']:.2f}"
               if t["refit_spearman_after"] is not None else
               (f"{t['refit_spearman_before']:.2f}/-" if t["refit_spearman_before"] is not None else "-"))
        print(f"{t['arm']:14s} {t['best_speedup']:11.3f}x {100 * t['of_all_real_speedup']:12.1f}% {t['real']:9.0f} "
              f"{t['gpu_s']:7.1f} {100 * t['of_all_real_gpu_s']:7.1f}% {rho:>22s}")
    print(f"(best achievable in the measured grid: {table[0]['oracle_best']:.3f}x mean over {len(tasks)} tasks)")
    res = {"machine": f"{platform.node()} {platform.processor() or platform.machine()}, Python {platform.python_version()}",
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "families": FAMILIES, "tasks": [t.id for t in tasks],
           "seeds": seeds, "steps": ns.steps, "arms": {k: v.__dict__ for k, v in ARMS.items()}, "table": table,
           "runs": rows, "wall_s": time.time() - t0}
    Path(ns.out).parent.mkdir(parents=True, exist_ok=True)
    Path(ns.out).write_text(json.dumps(res, indent=1, default=str))
    print(f"wrote {ns.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
