"""The default surrogate on the hand-written tensor-core GEMMs (`hw_hgemm`), against measured times.

The group's kernels were written apart from the `matmul_tc` family the model learned tensor cores
from. Their only measurement so far ran on an H100 (the device gave no H200 for them): the times
are not the H200's the model predicts, so the figures are indicative. Prints each sample's
prediction and measured time, then the within-size pairwise ranking accuracy (pairs more than 3%
apart) and the median |error|. Writes bench/results/h100_host/hw_hgemm_check.json (or --out).

    python bench/handwritten_gemm.py [--data bench/results/h100_host/hw_hgemm_h100.parquet]
"""
from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CLOSE = 0.03      # pairs closer than this are noise, as in rewardmodel/EVAL.md


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(ROOT / "bench" / "results" / "h100_host" / "hw_hgemm_h100.parquet"))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "h100_host" / "hw_hgemm_check.json"))
    ns = ap.parse_args(argv)
    import pandas as pd

    from corpus.handwritten import samples
    from rewardmodel.dataset import sample_args
    from rewardmodel.features import Problem, extract
    from rewardmodel.surrogate import load_default

    measured = pd.read_parquet(ns.data)
    measured = measured[(measured["pass"] == "main") & (measured["status"] == "ok")].set_index("sample_id")
    model = load_default()
    rows = []
    for s in samples():
        if s.family != "hw_hgemm" or s.sample_id not in measured.index:
            continue
        f = extract(s.source, s.kernel, grid=s.grid, block=s.block, smem=s.smem, args=sample_args(s),
                    problem=Problem(s.bytes, s.flops))
        rows.append({"size": s.size, "variant": s.variant, "predicted_ms": float(model.predict(f.vector()[None, :])[0]),
                     "measured_ms": float(measured.loc[s.sample_id, "time_ms"])})
    if not rows:
        print(f"no measured hw_hgemm sample in {ns.data}", file=sys.stderr)
        return 2
    right = pairs = 0
    for _, group in itertools.groupby(sorted(rows, key=lambda r: r["size"]), key=lambda r: r["size"]):
        for a, b in itertools.combinations(list(group), 2):
            if abs(a["measured_ms"] - b["measured_ms"]) / min(a["measured_ms"], b["measured_ms"]) < CLOSE:
                continue
            pairs += 1
            right += (a["predicted_ms"] < b["predicted_ms"]) == (a["measured_ms"] < b["measured_ms"])
    err = statistics.median(abs(r["predicted_ms"] - r["measured_ms"]) / r["measured_ms"] for r in rows)
    gpu = str(measured["gpu"].iloc[0])
    print(f"{'size':<20} {'variant':<30} {'predicted ms':>12} {'measured ms':>12}")
    for r in sorted(rows, key=lambda r: (r["size"], r["measured_ms"])):
        print(f"{r['size']:<20} {r['variant']:<30} {r['predicted_ms']:>12.3f} {r['measured_ms']:>12.3f}")
    print(f"pairs ranked right: {right} of {pairs}; median |error| {err:.1%} (measured on {gpu}; the model predicts H200 times)")
    Path(ns.out).write_text(json.dumps({"measured_on": gpu, "pairs_right": right, "pairs": pairs,
                                        "median_abs_error": err, "rows": rows}, indent=2) + "\n")
    print(f"wrote {ns.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
