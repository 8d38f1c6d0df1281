"""How well does the shipped surrogate rank candidates of the RL `c` tasks, which it never saw?

The default model (rewardmodel/default_model.zip) is trained on the corpus families and the
hand-written kernels only; the c tasks' naive ports and our variants were measured on the H200
afterwards (`python -m rl measure`, rows in corpus/data). For every c task size with at least two
measured candidates: within-task pairwise ranking accuracy, top-1 regret, Spearman over all rows,
MAPE; the roofline alone as the baseline (one time per task: pairwise 0.5).

    python bench/surrogate_tasks.py
Writes bench/results/surrogate_tasks.json and prints a table.
"""
from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    from corpus import store
    from rewardmodel.dataset import row_resources, sample_features
    from rewardmodel.evaluate import mape, pairwise_accuracy, spearman, top1_regret
    from rewardmodel.surrogate import load_default
    from rl.tasks import all_tasks

    t0 = time.time()
    df = store.read()
    df = df[(df["pass"] == "main") & (df["status"] == "ok") & (df["gpu"] == "NVIDIA H200")]
    rows = {r["sample_id"]: r for r in df.to_dict("records")}
    tasks = all_tasks(["c"])
    model = load_default()
    X, y, roof, task_of, fam = [], [], [], [], []
    for tid, task in tasks.items():
        for s in task.candidates:
            r = rows.get(s.sample_id)
            if r is None:
                continue
            f = sample_features(s, row_resources(r))
            X.append(f.vector())
            y.append(float(r["time_ms"]))
            roof.append(f.roofline_s * 1e3)
            task_of.append(tid)
            fam.append(s.family)
    if not X:
        print("error: no measured c-task candidates in corpus/data (run python -m rl measure on a GPU)", file=sys.stderr)
        return 2
    X, y, roof = np.vstack(X), np.array(y), np.array(roof)
    task_arr = np.array(task_of, dtype=object)
    pred = model.predict(X)
    iv = model.predict_with_uncertainty(X)

    def scores(p):
        acc, pairs = pairwise_accuracy(task_arr, y, p)
        reg = top1_regret(task_arr, y, p)
        return {"spearman": spearman(y, p), "pairwise": acc, "pairs": pairs,
                "regret_median": float(np.median(reg)), "regret_mean": float(np.mean(reg)), "mape": mape(y, p)}

    res = {"surrogate": scores(pred), "roofline": scores(roof)}
    res["surrogate"]["coverage"] = float(np.mean((iv.lo_ms <= y) & (y <= iv.hi_ms)))
    per_family = {}
    for f in sorted(set(fam)):
        m = np.array(fam) == f
        acc, pairs = pairwise_accuracy(task_arr[m], y[m], pred[m])
        per_family[f] = {"rows": int(m.sum()), "pairwise": acc, "pairs": pairs,
                         "regret_median": float(np.median(top1_regret(task_arr[m], y[m], pred[m])))}
    hdr = f"{'model':10s} {'rows':>5s} {'tasks':>5s} {'Spearman':>8s} {'pairwise':>9s} {'regret p50':>10s} {'mean':>7s} {'MAPE':>7s}"
    print(hdr)
    print("-" * len(hdr))
    for name, s in res.items():
        print(f"{name:10s} {len(y):5d} {len(set(task_of)):5d} {s['spearman']:8.3f} {s['pairwise']:9.3f} "
              f"{100 * s['regret_median']:9.1f}% {100 * s['regret_mean']:6.1f}% {100 * s['mape']:6.1f}%")
    print(f"interval coverage (nominal 80%): {100 * res['surrogate']['coverage']:.1f}%")
    worst = sorted(per_family.items(), key=lambda kv: kv[1]["pairwise"])[:5]
    print("lowest pairwise accuracy: " + ", ".join(f"{k} {v['pairwise']:.2f}" for k, v in worst))
    out = ROOT / "bench" / "results" / "surrogate_tasks.json"
    out.write_text(json.dumps({"machine": f"{platform.machine()}, Python {platform.python_version()}",
                               "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                               "rows": len(y), "tasks": len(set(task_of)), "scores": res,
                               "per_family": per_family, "wall_s": time.time() - t0}, indent=1))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
