"""`python -m corpus stats`: what the store holds.

Counts per family and status, ok samples with counters, the noise between the
main and the noise pass (median relative difference of the median times),
the time range and the GPUs.
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from . import store


def noise(df: Any, min_ms: float = 0.0) -> tuple[float, int]:
    """Median |t_noise - t_main| / t_main over samples ok in both passes (and t_main >= min_ms)."""
    ok = df[df["status"] == "ok"]
    main = ok[ok["pass"] == "main"].set_index(["sample_id", "gpu"])["time_ms"]
    again = ok[ok["pass"] == "noise"].set_index(["sample_id", "gpu"])["time_ms"]
    both = main.to_frame("a").join(again.to_frame("b"), how="inner")
    both = both[both["a"] >= min_ms]
    if not len(both):
        return float("nan"), 0
    rel = (both["b"] - both["a"]).abs() / both["a"]
    return float(rel.median()), int(len(both))


def summary(df: Any) -> dict[str, Any]:
    main = df[df["pass"] == "main"]
    ok = main[main["status"] == "ok"]
    table = main.groupby(["family", "status"]).size().unstack(fill_value=0) if len(main) else None
    return {
        "rows": int(len(df)), "main_rows": int(len(main)), "ok": int(len(ok)),
        "ok_with_counters": int(ok["has_counters"].fillna(False).astype(bool).sum()) if len(ok) else 0,
        "per_family": table,
        "noise": noise(df), "noise_over_20us": noise(df, 0.02),
        "time_ms_range": (float(ok["time_ms"].min()), float(ok["time_ms"].max())) if len(ok) else None,
        "gpus": sorted(set(df["gpu"].dropna())) if len(df) else [],
        "parts": len(store.part_files()),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m corpus stats", description=__doc__.splitlines()[0])
    ap.add_argument("--data", action="append", help="folder(s) of part files (default corpus/data)")
    args = ap.parse_args(argv)
    try:
        df = store.read(args.data or [store.DATA_DIR])
    except Exception as exc:  # unreadable part: say which, no traceback
        print(f"error: cannot read the store: {exc}", file=sys.stderr)
        return 2
    s = summary(df)
    print(f"rows {s['rows']} (main {s['main_rows']}, ok {s['ok']}, ok with counters {s['ok_with_counters']})")
    print(f"GPUs: {', '.join(s['gpus']) or '-'}")
    if s["time_ms_range"]:
        lo, hi = s["time_ms_range"]
        print(f"time range (ok): {lo * 1e3:.2f} us .. {hi:.3f} ms")
    n, k = s["noise"]
    n20, k20 = s["noise_over_20us"]
    print(f"noise (median |rerun - first| / first): {n:.2%} over {k} samples; {n20:.2%} over {k20} samples above 20 us")
    if s["per_family"] is not None:
        print(s["per_family"].to_string())
    return 0
