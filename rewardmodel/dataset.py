"""The training table: measured corpus rows joined to their samples, one feature row each.

Rows are the `pass == "main"`, `status == "ok"` measurements; the `noise` pass
re-measures some samples and gives the measurement's own noise floor. Feature
rows are cached on disk by (schema version, analyzer code, sample_id, resources), so a second
`train` or `eval` does not lint 3,000 sources again.
"""
from __future__ import annotations

import math
import os
import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from analyzer.cache import cache_root
from . import features as F


@dataclass
class Table:
    X: np.ndarray                  # (n, len(FEATURE_NAMES)) with ptxas-known resources from the measured row
    time_ms: np.ndarray            # measured median time
    roofline_ms: np.ndarray        # the task's roofline bound
    sample_id: list[str]
    family: np.ndarray
    task_id: np.ndarray
    variant: np.ndarray
    origin: np.ndarray
    baseline: np.ndarray
    skipped: dict[str, int]

    def __len__(self) -> int:
        return len(self.time_ms)

    def subset(self, idx) -> "Table":
        idx = np.asarray(idx)
        return Table(self.X[idx], self.time_ms[idx], self.roofline_ms[idx], [self.sample_id[i] for i in idx],
                     self.family[idx], self.task_id[idx], self.variant[idx], self.origin[idx], self.baseline[idx],
                     self.skipped)


def analyzer_fingerprint() -> str:
    """A hash of the analyzer's and the features' code: a changed analyzer gives other features."""
    import hashlib

    import analyzer

    h = hashlib.sha256()
    root = Path(analyzer.__file__).parent
    for f in sorted(list(root.glob("*.py")) + list(root.glob("rules/*.py")) + [Path(F.__file__)]):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def cache_path() -> Path:
    p = cache_root() / "features"
    p.mkdir(parents=True, exist_ok=True)
    return p / f"schema{F.SCHEMA_VERSION}-{analyzer_fingerprint()}.pkl"


def sample_args(sample) -> dict[str, int | float]:
    from analyzer.profile.spec import Scalar

    return {a.name: a.value for a in sample.args if isinstance(a, Scalar)}


def row_resources(row) -> dict[str, float] | None:
    regs = row.get("registers")
    if regs is None or not (isinstance(regs, (int, float, np.integer, np.floating)) and regs > 0):
        return None
    def nonneg(x):
        return float(x) if x is not None and not (isinstance(x, float) and math.isnan(x)) and x >= 0 else 0.0
    return {"registers": float(regs), "spill_stores": nonneg(row.get("spill_stores")),
            "spill_loads": nonneg(row.get("spill_loads")), "stack_bytes": nonneg(row.get("stack_bytes"))}


def sample_features(sample, resources=None) -> F.Features:
    return F.extract(sample.source, sample.kernel, grid=sample.grid, block=sample.block, smem=sample.smem,
                     args=sample_args(sample), problem=F.Problem(sample.bytes or None, sample.flops or None),
                     resources=resources, path=f"{sample.family}/{sample.variant}.cu")


def _work(item):
    key, sample, res = item
    try:
        f = sample_features(sample, res)
        return key, f.vector(), f.roofline_s, None
    except Exception as exc:  # noqa: BLE001 - one bad sample is skipped and counted, not fatal
        return key, None, None, f"{type(exc).__name__}: {exc}"


MODULE_STYLES = ("host_wrapper", "load_inline")
TASK_PREFIXES = ("c_", "torch_")


def samples_with(extra: Iterable[str] = ()) -> list | None:
    """The corpus' samples plus those each "module:function" in `extra` returns (samples defined
    outside the corpus, e.g. the RL tasks' candidates, named by path so this package does not
    import their owner); None (the corpus' own) when `extra` is empty."""
    if not extra:
        return None
    from analyzer.profile.spec import resolve
    from corpus.families import all_samples

    out = list(all_samples())
    for path in extra:
        out.extend(resolve(path)())
    return out


def load(data_dirs: Iterable[str] | None = None, samples=None, jobs: int | None = None, use_cache: bool = True,
         gpu: str | None = None) -> Table:
    """Every ok main-pass row that still matches a sample, with its features."""
    from corpus import store

    df = store.read(data_dirs) if data_dirs else store.read()
    if samples is None:
        from corpus.families import all_samples
        samples = all_samples()
    by_id = {s.sample_id: s for s in samples}
    skipped = {"not_ok": 0, "unknown_sample": 0, "feature_error": 0, "module_rows": 0, "task_rows": 0}
    if len(df):
        sel = df["pass"] == "main"
        if gpu:
            sel &= df["gpu"] == gpu
        df = df[sel]
        # whole-module rows (host wrappers, load_inline modules: rl.measure_modules) have no one launch to featurize
        modules = df["style"].isin(MODULE_STYLES)
        skipped["module_rows"] = int(modules.sum())
        df = df[~modules]
        skipped["not_ok"] = int((df["status"] != "ok").sum())
        df = df[(df["status"] == "ok") & (df["time_ms"] > 0)]
    rows = df.to_dict("records") if len(df) else []
    items = []
    for row in rows:
        s = by_id.get(row["sample_id"])
        if s is None:   # RL task candidates ("c_*", "torch_*" families) join only when their samples are given
            skipped["task_rows" if str(row.get("family", "")).startswith(TASK_PREFIXES) else "unknown_sample"] += 1
            continue
        res = row_resources(row)
        key = (row["sample_id"], tuple(sorted(res.items())) if res else None)
        items.append((key, s, res, row))
    cache: dict = {}
    path = cache_path()
    if use_cache and path.exists():
        try:
            cache = pickle.loads(path.read_bytes())
        except Exception:  # noqa: BLE001 - a broken cache is rebuilt
            cache = {}
    todo = [(k, s, r) for k, s, r, _ in items if k not in cache]
    if todo:
        jobs = jobs or max(1, min(8, os.cpu_count() or 1))
        if jobs > 1 and len(todo) > 50:
            import multiprocessing as mp
            with mp.get_context("fork").Pool(jobs) as pool:
                results = pool.map(_work, todo, chunksize=16)
        else:
            results = [_work(t) for t in todo]
        for key, vec, roof, err in results:
            cache[key] = (vec, roof, err)
        if use_cache:
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(pickle.dumps(cache))
            os.replace(tmp, path)
    X, t, roof, ids, fam, task, var, origin, base = [], [], [], [], [], [], [], [], []
    for key, s, _, row in items:
        vec, r, err = cache[key]
        if vec is None:
            skipped["feature_error"] += 1
            continue
        X.append(vec)
        t.append(float(row["time_ms"]))
        roof.append(r * 1e3)
        ids.append(s.sample_id)
        fam.append(s.family)
        task.append(s.task_id)
        var.append(s.variant)
        origin.append(s.origin)
        base.append(bool(s.baseline))
    n = len(X)
    return Table(np.array(X, dtype=np.float64).reshape(n, len(F.FEATURE_NAMES)), np.array(t), np.array(roof), ids,
                 np.array(fam, dtype=object), np.array(task, dtype=object), np.array(var, dtype=object),
                 np.array(origin, dtype=object), np.array(base, dtype=bool), skipped)


def noise_floor(data_dirs: Iterable[str] | None = None) -> dict[str, float]:
    """How far a re-measurement lands from the first: median and p90 of |log(t_noise / t_main)|, as ratios."""
    from corpus import store

    df = store.read(data_dirs) if data_dirs else store.read()
    if not len(df):
        return {}
    ok = df[(df["status"] == "ok") & (df["time_ms"] > 0)]
    main = ok[ok["pass"] == "main"].set_index(["sample_id", "gpu"])["time_ms"]
    noise = ok[ok["pass"] == "noise"].set_index(["sample_id", "gpu"])["time_ms"]
    both = main.to_frame("main").join(noise.to_frame("noise"), how="inner")
    if not len(both):
        return {}
    r = np.abs(np.log(both["noise"].to_numpy() / both["main"].to_numpy()))
    return {"pairs": int(len(both)), "median_ratio": float(np.exp(np.median(r))), "p90_ratio": float(np.exp(np.quantile(r, 0.9)))}
