"""The measurement store: append-only parquet part files under corpus/data/.

A collection run writes its own new part file(s) and never touches old ones;
reading concatenates every part. One row per (sample_id, gpu, pass); when a
sample was measured again (a retry), the newest row wins on read.
"""
from __future__ import annotations

import math
import os
import secrets
import datetime as _dt
from pathlib import Path
from typing import Any, Iterable

DATA_DIR = Path(__file__).resolve().parent / "data"

# Column order of every part file. Counters come after these (see COUNTER_COLUMNS).
BASE_COLUMNS = (
    "sample_id", "source_hash", "family", "variant", "size", "task_id", "params", "origin", "style", "kernel",
    "grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "threads", "smem", "bytes", "flops", "baseline",
    "status", "message", "time_ms", "p10_ms", "p90_ms", "mean_ms", "reps", "compile_s", "cached", "run_s",
    "max_abs_err", "max_rel_err", "frac_wrong", "registers", "local_bytes", "static_smem", "spill_stores",
    "spill_loads", "stack_bytes", "has_counters", "pass", "gpu", "driver", "cuda_driver", "nvrtc", "arch",
    "sm_clock_mhz", "mem_clock_mhz", "sm_clock_max_mhz", "run_id", "date",
)
KEY = ("sample_id", "gpu", "pass")
PART_LIMIT_BYTES = 12 << 20  # the device returns files of at most 16 MiB


def _counter_columns() -> tuple[str, ...]:
    from analyzer.profile.counters import COUNTER_COLUMNS
    return COUNTER_COLUMNS


def columns() -> tuple[str, ...]:
    return BASE_COLUMNS + _counter_columns()


def part_files(dirs: Iterable[str | os.PathLike] = (DATA_DIR,)) -> list[Path]:
    files: list[Path] = []
    for d in dirs:
        p = Path(d)
        if p.is_dir():
            files.extend(sorted(p.glob("*.parquet")))
    return files


def read(dirs: Iterable[str | os.PathLike] = (DATA_DIR,), dedupe: bool = True):
    """Every part concatenated (a pandas DataFrame); newest row per (sample_id, gpu, pass)."""
    import pandas as pd

    frames = [pd.read_parquet(f) for f in part_files(dirs)]
    frames = [f for f in frames if len(f)]
    if not frames:
        return pd.DataFrame(columns=list(columns()))
    df = pd.concat(frames, ignore_index=True)
    if dedupe and len(df):
        df = df.sort_values("date", kind="stable").drop_duplicates(list(KEY), keep="last").reset_index(drop=True)
    return df


def done_keys(df, gpu: str, pass_: str = "main", statuses: Iterable[str] | None = None) -> set[str]:
    """sample_ids already in the store for this GPU and pass (optionally only with these statuses)."""
    if not len(df):
        return set()
    sel = (df["gpu"] == gpu) & (df["pass"] == pass_)
    if statuses is not None:
        sel &= df["status"].isin(list(statuses))
    return set(df.loc[sel, "sample_id"])


def normalise(row: dict[str, Any]) -> dict[str, Any]:
    """Every column present, counters NaN where not measured."""
    out = {c: row.get(c) for c in BASE_COLUMNS}
    for c in _counter_columns():
        v = row.get(c)
        out[c] = math.nan if v is None else float(v)
    return out


def new_part_name(tag: str) -> str:
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{tag}-{stamp}-{secrets.token_hex(3)}.parquet"


def write_parquet(rows: list[dict[str, Any]], path: Path) -> None:
    """Write rows atomically (temp file + rename), so a killed run never leaves half a file."""
    import pandas as pd

    df = pd.DataFrame([normalise(r) for r in rows], columns=list(columns()))
    tmp = path.with_name(f".{path.name}.tmp")
    df.to_parquet(tmp, index=False, compression="zstd")
    os.replace(tmp, path)


class PartWriter:
    """Collects one run's rows; each flush rewrites only this run's own part file.

    A killed run therefore loses at most the rows since the last flush. When a
    part grows past PART_LIMIT_BYTES a new part is started.
    """

    def __init__(self, out_dir: str | os.PathLike, tag: str) -> None:
        self.dir = Path(out_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.tag = tag
        self.rows: list[dict[str, Any]] = []
        self.path = self.dir / new_part_name(tag)
        self.paths: list[Path] = []
        self.total = 0

    def add(self, rows: Iterable[dict[str, Any]]) -> None:
        rows = list(rows)
        self.rows.extend(rows)
        self.total += len(rows)

    def flush(self) -> None:
        if not self.rows:
            return
        write_parquet(self.rows, self.path)
        if self.path not in self.paths:
            self.paths.append(self.path)
        if self.path.stat().st_size > PART_LIMIT_BYTES:
            self.rows = []
            self.path = self.dir / new_part_name(self.tag)
