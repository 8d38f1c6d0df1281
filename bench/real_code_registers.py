"""The static register estimate on real CUDA code, against ptxas.

    python bench/real_code_registers.py DIR... [--out bench/results/real_code_registers.json]

Each *.cu / *.cuh file below the folders is linted twice in this process, as `python -m analyzer
lint FILE` lints it (the static estimate) and with `--ptxas` (NVRTC, else nvcc). Public projects'
files seldom compile alone (their headers are elsewhere), so only the kernels ptxas resolved are
compared: relative error of the registers, share within 25%, Spearman's rho, and whether the
occupancy (and so OC601's verdict) is the same. The corpus figures (`python -m corpus
fit-registers`) are for kernels of the families the weights were fitted on; these are for code
nobody fitted anything on. Only aggregates and kernel names are written; no code is.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def compare(files: list[tuple[Path, str]]) -> tuple[list[dict], dict]:
    from analyzer.lint import LintSettings, lint_source

    static, compiled = LintSettings(), LintSettings(ptxas=True)
    pairs, counts = [], {"files": 0, "files_compiled": 0, "nvrtc_crashes": 0, "kernels_static_only": 0}
    for i, (path, name) in enumerate(files, 1):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        counts["files"] += 1
        guessed = {(k.name, k.line): k for k in lint_source(text, str(path), settings=static).kernels}
        res = lint_source(text, str(path), settings=compiled)
        counts["nvrtc_crashes"] += sum(1 for n in res.notes if "NVRTC crashed" in n)
        resolved = [k for k in res.kernels if k.registers_source != "estimate"]
        counts["files_compiled"] += bool(resolved)
        counts["kernels_static_only"] += len(res.kernels) - len(resolved)
        for k in resolved:
            g = guessed.get((k.name, k.line))
            if g is not None:
                pairs.append({"path": name, "kernel": k.name, "line": k.line, "estimate": g.registers,
                              "ptxas": k.registers, "source": k.registers_source,
                              "occupancy_estimate": g.occupancy, "occupancy_ptxas": k.occupancy})
        if i % 50 == 0:
            print(f"  {i}/{len(files)} files, {len(pairs)} kernels compiled", file=sys.stderr)
    return pairs, counts


def summary(pairs: list[dict]) -> dict:
    from scipy.stats import spearmanr

    est = np.array([p["estimate"] for p in pairs], float)
    real = np.array([p["ptxas"] for p in pairs], float)
    rel = np.abs(est - real) / real
    occ_e = np.array([p["occupancy_estimate"] for p in pairs], float)
    occ_p = np.array([p["occupancy_ptxas"] for p in pairs], float)
    low_e, low_p = occ_e < 0.25, occ_p < 0.25        # OC601's default threshold
    return {"kernels": len(pairs), "median_rel_error": float(np.median(rel)), "within_25pct": float(np.mean(rel <= 0.25)),
            "spearman": float(spearmanr(est, real).correlation) if len(pairs) > 2 else None,
            "mean_signed_error": float(np.mean(est - real)),
            "occupancy_equal": float(np.mean(np.isclose(occ_e, occ_p))),
            "oc601_wrong": int(np.sum(low_e & ~low_p)), "oc601_missed": int(np.sum(~low_e & low_p))}


def main(argv=None) -> int:
    from real_code import cuda_files
    from lint_speed import machine

    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "real_code_registers.json"))
    ns = ap.parse_args(argv)
    files = cuda_files(ns.dirs)
    if not files:
        raise SystemExit("error: no .cu or .cuh files below the given folders")
    t0 = time.perf_counter()
    pairs, counts = compare(files)
    if not pairs:
        raise SystemExit("error: ptxas resolved no kernel (no NVRTC or nvcc, or no file compiles alone)")
    out = {"machine": machine(), **counts, "seconds": time.perf_counter() - t0, "summary": summary(pairs),
           "worst": sorted(pairs, key=lambda p: -abs(p["estimate"] - p["ptxas"]) / p["ptxas"])[:15],
           "per_kernel": pairs}
    Path(ns.out).parent.mkdir(parents=True, exist_ok=True)
    Path(ns.out).write_text(json.dumps(out, indent=2) + "\n")
    s = out["summary"]
    print(f"{'files (read)':<34}{counts['files']:>10}")
    print(f"{'files with a kernel ptxas resolved':<34}{counts['files_compiled']:>10}")
    print(f"{'kernels compared':<34}{s['kernels']:>10}")
    print(f"{'NVRTC crashes (survived)':<34}{counts['nvrtc_crashes']:>10}")
    print(f"{'median relative error':<34}{100 * s['median_rel_error']:>9.0f}%")
    print(f"{'within 25%':<34}{100 * s['within_25pct']:>9.0f}%")
    print(f"{'Spearman':<34}{s['spearman']:>10.3f}")
    print(f"{'mean estimate - ptxas':<34}{s['mean_signed_error']:>10.1f}")
    print(f"{'occupancy = ptxas':<34}{100 * s['occupancy_equal']:>9.0f}%")
    print(f"{'OC601 wrong / missed':<34}{s['oc601_wrong']:>6} / {s['oc601_missed']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
