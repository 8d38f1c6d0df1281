"""The append-only parquet store and the stats over it."""
from __future__ import annotations

import math

import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

from corpus import stats, store  # noqa: E402


def _row(sid, pass_="main", status="ok", t=1.0, date="2026-12-03T08:00:00Z", **kw):
    return {"sample_id": sid, "gpu": "NVIDIA H200", "pass": pass_, "status": status, "time_ms": t,
            "family": kw.pop("family", "fam"), "date": date, "has_counters": kw.pop("has_counters", False), **kw}


def test_writer_flush_rewrites_only_its_own_part(tmp_path):
    old = tmp_path / "old.parquet"
    store.write_parquet([_row("a")], old)
    before = old.stat().st_mtime_ns
    w = store.PartWriter(tmp_path, "h200")
    w.add([_row("b")])
    w.flush()
    w.add([_row("c")])
    w.flush()
    assert old.stat().st_mtime_ns == before
    assert len(w.paths) == 1
    df = store.read([tmp_path])
    assert sorted(df["sample_id"]) == ["a", "b", "c"]
    assert list(df.columns) == list(store.columns())
    assert math.isnan(df.loc[df.sample_id == "a", "gld_sectors"].iloc[0])


def test_read_keeps_newest_row_per_key(tmp_path):
    store.write_parquet([_row("a", status="timeout", date="2026-12-03T08:00:00Z")], tmp_path / "p1.parquet")
    store.write_parquet([_row("a", status="ok", date="2026-12-03T09:00:00Z"), _row("a", pass_="noise")],
                        tmp_path / "p2.parquet")
    df = store.read([tmp_path])
    assert len(df) == 2
    assert df.loc[df["pass"] == "main", "status"].iloc[0] == "ok"
    assert len(store.read([tmp_path], dedupe=False)) == 3


def test_done_keys_by_gpu_pass_and_status(tmp_path):
    store.write_parquet([_row("a"), _row("b", status="crash"), _row("c", pass_="noise")], tmp_path / "p.parquet")
    df = store.read([tmp_path])
    assert store.done_keys(df, "NVIDIA H200") == {"a", "b"}
    assert store.done_keys(df, "NVIDIA H200", statuses=["ok"]) == {"a"}
    assert store.done_keys(df, "Other GPU") == set()


def test_empty_store_reads_as_empty_frame(tmp_path):
    df = store.read([tmp_path / "nothing"])
    assert len(df) == 0 and "sample_id" in df.columns


def test_writer_starts_a_new_part_past_the_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(store, "PART_LIMIT_BYTES", 1)
    w = store.PartWriter(tmp_path, "h200")
    w.add([_row("a")])
    w.flush()
    w.add([_row("b")])
    w.flush()
    assert len(w.paths) == 2 and len(store.read([tmp_path])) == 2


def test_noise_is_median_relative_difference(tmp_path):
    rows = [_row("a", t=1.0), _row("a", "noise", t=1.1), _row("b", t=0.01), _row("b", "noise", t=0.02),
            _row("c", t=2.0), _row("c", "noise", t=2.0), _row("d", t=5.0)]
    store.write_parquet(rows, tmp_path / "p.parquet")
    df = store.read([tmp_path])
    value, n = stats.noise(df)
    assert n == 3 and value == pytest.approx(0.1)
    value, n = stats.noise(df, min_ms=0.02)
    assert n == 2 and value == pytest.approx(0.05)


def test_stats_cli_prints_counts(tmp_path, capsys):
    store.write_parquet([_row("a", family="x"), _row("b", family="x", status="crash"),
                         _row("c", family="y", has_counters=True)], tmp_path / "p.parquet")
    assert stats.main(["--data", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "rows 3" in out and "ok 2" in out and "ok with counters 1" in out and "crash" in out
