"""How well does the surrogate rank candidates of the RL tasks (`c` ports and `torch` ports) it never saw?

Rows: every measured candidate of the c tasks (naive ports of sequential C and our variants) and of
the torch tasks with a raw-kernel port (rl/suites/torch/ports), H200, `python -m rl measure`. Arms:
- held-out task families: k folds over the task families (c_gemm, torch_softmax, ...); each fold's
  surrogate is trained on the corpus (template families and hand-written kernels) plus the other
  folds' task families, and predicts the held-out ones (never a task of the same problem);
- corpus only: trained on the corpus alone, no task row at all (what a user's new kind of task meets);
- the roofline alone (one time per task: pairwise 0.5).
Per kind: Spearman of runtime, within-task pairwise ranking accuracy (a task = one problem at one
size), top-1 regret, MAPE, and the interval's coverage. The same configuration (target, depth) as
`python -m rewardmodel train`.

    python bench/surrogate_tasks.py [--folds 5]
Writes bench/results/surrogate_tasks.json, the "RL tasks" section of rewardmodel/EVAL.md, and prints a table.
"""
from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def kind_of(family: str) -> str:
    return "c" if family.startswith("c_") else "torch" if family.startswith("torch_") else "corpus"


def folds_of(families: list[str], k: int, seed: int = 0) -> list[list[str]]:
    """k folds of task families, each fold mixing c and torch families (shuffled, dealt round robin)."""
    rng = np.random.default_rng(seed)
    fams = list(families)
    rng.shuffle(fams)
    return [sorted(fams[i::k]) for i in range(k) if fams[i::k]]


def scores(task, y, p, lo=None, hi=None) -> dict:
    from rewardmodel.evaluate import mape, pairwise_accuracy, spearman, top1_regret

    acc, pairs = pairwise_accuracy(task, y, p)
    reg = top1_regret(task, y, p)
    out = {"rows": int(len(y)), "tasks": int(len(set(task))), "spearman": spearman(y, p), "pairwise": acc,
           "pairs": pairs, "regret_median": float(np.median(reg)), "regret_mean": float(np.mean(reg)),
           "mape": mape(y, p)}
    if lo is not None:
        out["coverage"] = float(np.mean((lo <= y) & (y <= hi)))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--no-eval-md", action="store_true", help="do not write the section of rewardmodel/EVAL.md")
    args = ap.parse_args(argv)

    from rewardmodel import dataset
    from rewardmodel.evaluate import chosen_config, write_section
    from rewardmodel.surrogate import Surrogate

    t0 = time.time()
    table = dataset.load(samples=dataset.samples_with(["rl.tasks:task_samples"]), gpu="NVIDIA H200")
    kinds = np.array([kind_of(f) for f in table.family], dtype=object)
    is_task = kinds != "corpus"
    if not is_task.any():
        print("error: no measured c/torch task candidates in corpus/data (run python -m rl measure on a GPU)",
              file=sys.stderr)
        return 2
    config = chosen_config()
    task_fams = sorted(set(table.family[is_task]))
    folds = folds_of(task_fams, args.folds)
    idx = np.flatnonzero(is_task)
    y = table.time_ms[idx]
    task = table.task_id[idx]
    preds = {"held-out task families": np.zeros(len(idx)), "corpus only": np.zeros(len(idx))}
    lo = {k: np.zeros(len(idx)) for k in preds}
    hi = {k: np.zeros(len(idx)) for k in preds}

    def fit_predict(train: np.ndarray, test_pos: np.ndarray, arm: str) -> None:
        model = Surrogate(config).fit(table.X[train], table.time_ms[train], groups=table.family[train])
        Xt = table.X[idx[test_pos]]
        preds[arm][test_pos] = model.predict(Xt)
        iv = model.predict_with_uncertainty(Xt)
        lo[arm][test_pos], hi[arm][test_pos] = iv.lo_ms, iv.hi_ms

    for i, fold in enumerate(folds):
        held = np.isin(table.family, fold)
        fit_predict(np.flatnonzero(~held), np.flatnonzero(np.isin(table.family[idx], fold)), "held-out task families")
        print(f"[surrogate_tasks] fold {i + 1}/{len(folds)}: {len(fold)} families held out", file=sys.stderr, flush=True)
    fit_predict(np.flatnonzero(~is_task), np.arange(len(idx)), "corpus only")
    roof = table.roofline_ms[idx]

    res: dict[str, dict] = {}
    for k in ("c", "torch", "all"):
        m = np.ones(len(idx), bool) if k == "all" else kinds[idx] == k
        if not m.any():
            continue
        res[k] = {arm: scores(task[m], y[m], p[m], lo[arm][m], hi[arm][m]) for arm, p in preds.items()}
        res[k]["roofline"] = scores(task[m], y[m], roof[m])
    per_family = {}
    p_held = preds["held-out task families"]
    for f in task_fams:
        m = table.family[idx] == f
        per_family[f] = scores(task[m], y[m], p_held[m])

    hdr = (f"{'kind':6s} {'model':24s} {'rows':>5s} {'tasks':>5s} {'Spearman':>8s} {'pairwise':>9s} "
           f"{'regret p50':>10s} {'mean':>7s} {'MAPE':>7s} {'coverage':>8s}")
    print(hdr)
    print("-" * len(hdr))
    md = ["## RL tasks: c and torch port candidates (held out)", "",
          f"Generated by `python bench/surrogate_tasks.py` on {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC; "
          "do not edit by hand (`python -m rewardmodel eval` keeps this section).", "",
          f"Rows: every measured (H200, ok) candidate of the `c` tasks and of the `torch` tasks with a raw-kernel "
          f"port: {int((kinds == 'c').sum())} c rows, {int((kinds == 'torch').sum())} torch rows, "
          f"{len(task_fams)} task families, {len(set(task))} tasks (one problem at one size). "
          f"**held-out task families**: {len(folds)} folds over the task families, each trained on the corpus "
          "plus the other folds' task families (never the same problem). **corpus only**: trained on the corpus "
          "(template families, hand-written kernels) alone. Roofline: one time per task.", "",
          "| kind | model | rows | tasks | Spearman ρ | pairwise acc. | top-1 regret median | mean | MAPE | coverage (80%) |",
          "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for k, arms in res.items():
        for arm, s in arms.items():
            cov = f"{100 * s['coverage']:.1f}%" if "coverage" in s else "-"
            print(f"{k:6s} {arm:24s} {s['rows']:5d} {s['tasks']:5d} {s['spearman']:8.3f} {s['pairwise']:9.3f} "
                  f"{100 * s['regret_median']:9.1f}% {100 * s['regret_mean']:6.1f}% {100 * s['mape']:6.1f}% {cov:>8s}")
            md.append(f"| {k} | {arm} | {s['rows']} | {s['tasks']} | {s['spearman']:.3f} | {s['pairwise']:.3f} | "
                      f"{100 * s['regret_median']:.1f}% | {100 * s['regret_mean']:.1f}% | {100 * s['mape']:.1f}% | {cov} |")
    worst = sorted(per_family.items(), key=lambda kv: kv[1]["pairwise"])[:6]
    line = ", ".join(f"{k} {v['pairwise']:.2f}" for k, v in worst)
    print(f"lowest pairwise accuracy (held out): {line}")
    md += ["", f"Lowest within-task pairwise accuracy when held out: {line}.", ""]
    out = ROOT / "bench" / "results" / "surrogate_tasks.json"
    out.write_text(json.dumps({"machine": f"{platform.machine()}, Python {platform.python_version()}",
                               "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "folds": folds,
                               "scores": res, "per_family": per_family, "wall_s": time.time() - t0}, indent=1))
    print(f"wrote {out}")
    if not args.no_eval_md:
        write_section("\n".join(md))
        print("wrote the RL tasks section of rewardmodel/EVAL.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
