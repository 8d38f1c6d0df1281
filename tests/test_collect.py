"""Collection helpers that need no GPU: shares, shards, filters, ordering, rows, the CLI's errors."""
from __future__ import annotations

import json
import math

import pytest

from analyzer.profile.records import Measurement
from analyzer.profile.spec import Buffer, Scalar
from corpus import __main__ as cli
from corpus.collect import Share, load_samples, order_by_problem, parse_shard, row_for, select
from corpus.families.base import Sample


def _sample(i: int, family="fam", size="n1", seed=0, origin="family"):
    src = f'extern "C" __global__ void k{i}(float* y, int n) {{ }}'
    return Sample(family=family, variant=f"v{i}", size=size, source=src, kernel=f"k{i}", grid=(1, 1, 1),
                  block=(32, 1, 1), args=(Buffer("y", "float32", 4, "out"), Scalar("n", "int32", 4)),
                  problem="m:f", problem_kwargs={"n": 4, "seed": seed}, params={"b": 32}, bytes=16, origin=origin)


def test_share_parsing_and_picks():
    assert Share.parse(None).fraction == 0.0
    assert Share.parse("all").picks("x", 5)
    every = Share.parse("every-3")
    assert [every.picks("x", i) for i in range(6)] == [True, False, False, True, False, False]
    half = Share.parse("0.5")
    ids = [f"id{i}" for i in range(2000)]
    share = sum(half.picks(s, 0) for s in ids) / len(ids)
    assert 0.45 < share < 0.55
    assert [half.picks(s, 0) for s in ids] == [half.picks(s, 7) for s in ids]  # by id, not position
    for bad in ("2", "every-0", "x"):
        with pytest.raises(ValueError):
            Share.parse(bad)


def test_shards_partition_the_samples():
    samples = [_sample(i) for i in range(100)]
    assert parse_shard("1/3") == (1, 3)
    parts = [select(samples, shard=(i, 3)) for i in range(3)]
    ids = [s.sample_id for p in parts for s in p]
    assert sorted(ids) == sorted(s.sample_id for s in samples)
    for bad in ("3/3", "a/b", "1"):
        with pytest.raises(ValueError):
            parse_shard(bad)


def test_select_filters_and_dedupes():
    samples = [_sample(0), _sample(0), _sample(1, family="other"), _sample(2, size="n2"),
               _sample(3, origin="handwritten")]
    assert len(select(samples)) == 4
    assert [s.variant for s in select(samples, families=["other"])] == ["v1"]
    assert [s.variant for s in select(samples, sizes=["n2"])] == ["v2"]
    assert [s.variant for s in select(samples, origins=["handwritten"])] == ["v3"]


def test_order_by_problem_groups_shared_problems_and_interleaves_families():
    a, b, c = _sample(0, seed=1), _sample(1, seed=2), _sample(2, seed=1)
    assert [s.variant for s in order_by_problem([a, b, c])] == ["v0", "v2", "v1"]
    x, y = _sample(3, family="other", seed=5), _sample(4, family="other", seed=6)
    assert [s.variant for s in order_by_problem([a, b, c, x, y])] == ["v0", "v2", "v3", "v1", "v4"]


def test_row_for_has_every_field():
    s = _sample(7)
    m = Measurement(s.sample_id, "ok", time_ms=0.5, reps=20, counters={"gld_sectors": 8.0})
    row = row_for(s, m, {"gpu": "NVIDIA H200", "driver": "580"}, "main", "run1")
    assert row["task_id"] == "fam/n1" and row["threads"] == 32 and json.loads(row["params"]) == {"b": 32}
    assert row["has_counters"] and row["gld_sectors"] == 8.0 and row["gpu"] == "NVIDIA H200"
    assert math.isnan(row["p10_ms"])


def test_validate_without_module_is_a_one_line_error(capsys, monkeypatch):
    import importlib.util

    if importlib.util.find_spec("corpus.validate") is not None:
        pytest.skip("corpus.validate exists now")
    assert cli.main(["validate"]) == 2
    assert "not written yet" in capsys.readouterr().err


def test_unknown_command_and_bad_options(capsys):
    assert cli.main(["frobnicate"]) == 2
    from corpus.collect import main as collect_main

    assert collect_main(["--counters", "7", "--dry-run"]) == 2
    assert "error:" in capsys.readouterr().err


def test_load_samples_survives_a_broken_family(monkeypatch, capsys):
    import corpus.families as fam
    import importlib

    real = importlib.import_module

    def flaky(name, *a, **k):
        if name == "corpus.families.transpose":
            raise RuntimeError("boom")
        return real(name, *a, **k)

    monkeypatch.setattr(importlib, "import_module", flaky)
    got = load_samples()
    if any(info.name == "transpose" for info in __import__("pkgutil").iter_modules(fam.__path__)):
        assert "skipping family transpose: RuntimeError: boom" in capsys.readouterr().err
    assert got and all(s.family != "transpose" for s in got)


def test_noise_picks_tops_up_to_the_share():
    pd = pytest.importorskip("pandas")
    from corpus.collect import noise_picks

    samples = [_sample(i) for i in range(20)]
    ids = [s.sample_id for s in samples]
    existing = pd.DataFrame([{"sample_id": i, "gpu": "G", "pass": "main", "status": "ok"} for i in ids[:10]]
                            + [{"sample_id": ids[0], "gpu": "G", "pass": "noise", "status": "ok"}])
    rows = [{"sample_id": i, "status": "ok"} for i in ids[10:18]] + [{"sample_id": ids[19], "status": "crash"}]
    picked = noise_picks(samples, rows, existing, "G", 0.5, seed=1)
    # 18 ok samples -> 9 noise rows wanted, 1 exists -> 8 more, never the crashed one or the one measured twice
    assert len(picked) == 8
    assert ids[0] not in {s.sample_id for s in picked} and ids[19] not in {s.sample_id for s in picked}
    assert noise_picks(samples, rows, existing, "G", 0.5, seed=1) == picked


def test_chunk_noise_picks_are_clustered_and_sized():
    import random

    from corpus.collect import chunk_noise_picks

    samples = [_sample(i, seed=i % 10) for i in range(200)]
    by_id = {s.sample_id: s for s in samples}
    rows = [{"sample_id": s.sample_id, "status": "ok" if i % 20 else "crash"} for i, s in enumerate(samples)]
    picked = chunk_noise_picks(rows, by_id, 0.05, random.Random(3))
    assert len(picked) in (9, 10) and len(set(picked)) == len(picked)
    assert all(by_id[p].sample_id in {r["sample_id"] for r in rows if r["status"] == "ok"} for p in picked)
    assert len({by_id[p].problem_kwargs["seed"] for p in picked}) <= 3  # at most 4 per problem


def test_dry_run_plans_against_a_named_gpus_stored_rows(capsys):
    """On a CPU machine, --gpu shows what a resumed collection on that GPU still has to measure."""
    from corpus.collect import main

    assert main(["--dry-run", "--gpu", "NVIDIA H200", "--family", "transpose"]) == 0
    err = capsys.readouterr().err
    line = next(l for l in err.splitlines() if "samples selected" in l)
    selected, stored = (int(w) for w in (line.split()[1], line.split("selected, ")[1].split()[0]))
    assert selected > 0 and 0 < stored <= selected  # the committed H200 rows count as done
    assert main(["--gpu", "NVIDIA H200", "--family", "transpose", "--limit", "1"]) == 2
