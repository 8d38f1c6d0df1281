"""`python -m rl.measure`: which candidates a run selects, which it skips as already stored,
the dry run's plan, the store rows of c-task samples and the C reference timings file."""
from __future__ import annotations

import json
import sys
import time

import pytest

from analyzer.profile import toolkit
from analyzer.profile.records import Measurement
from corpus import collect, store
from rl import measure as M
from rl.tasks import c_kind as K

GPU = "NVIDIA H200"


@pytest.fixture(scope="module")
def tasks():
    return K.load_c_tasks([K.SUITE_DIR])


@pytest.fixture
def no_gpu_and_empty_store(tmp_path, monkeypatch):
    """Plans against an empty corpus/data (the real one grows) on a machine without a GPU."""
    monkeypatch.setattr(store, "DATA_DIR", tmp_path / "data")
    monkeypatch.setattr(toolkit, "nvidia_smi", lambda *a, **k: [])
    return tmp_path


def test_select_tasks_by_kind_prefix_and_size(tasks):
    got = [t.id for t in M.select_tasks(tasks, "c", ["c/triad", "gemm"], ["small", "medium"])]
    assert got == ["c/gemm/medium", "c/gemm/small", "c/triad/medium", "c/triad/small"]
    assert M.select_tasks(tasks, "torch") == []
    assert len(M.select_tasks(tasks, "c")) == len(tasks)
    assert M.select_tasks(tasks, "c", ["c/tri"], ["large"])[0].id == "c/triad/large"


def test_candidates_baseline_first_and_each_once(tasks):
    sel = M.select_tasks(tasks, "c", ["triad"], ["small"])
    got = M.candidates(sel + sel)
    assert got[0] is sel[0].baseline and len(got) == len(sel[0].candidates) > 1


def test_plan_skips_stored_and_picks_counters(tasks):
    cands = M.candidates(M.select_tasks(tasks, "c", ["triad", "dot"], ["small", "medium"]))
    stored = {cands[0].sample_id}
    todo, ctr = M.plan(cands, stored, collect.Share.parse("all"))
    assert len(todo) == len(cands) - 1 and cands[0] not in todo and ctr == {s.sample_id for s in todo}
    assert M.plan(cands, set(), collect.Share())[1] == set()
    # one problem's samples together; the problems round-robin over the tasks, small sizes first
    problems = [(s.family, s.size) for s in todo]
    order = list(dict.fromkeys(problems))
    assert len(order) == 4 and {f for f, _ in order[:2]} == {"c_dot", "c_triad"}
    assert {z for _, z in order[:2]} == {"small"} and problems == sorted(problems, key=order.index)


def test_row_of_a_c_sample_has_the_store_columns(tasks):
    s = tasks["c/histogram/small"].candidates[1]
    m = Measurement(s.sample_id, "ok", time_ms=0.02, reps=10, counters={"gld_sectors": 8.0})
    row = M.collect.row_for(s, m, {"gpu": GPU, "arch": "sm_90"}, "main", "r1")
    assert set(store.columns()) - set(store.normalise(row)) == set()
    assert row["family"] == "c_histogram" and row["variant"] == s.variant and row["smem"] == s.smem > 0
    assert json.loads(row["params"]) == s.params and row["style"] == "c_variant" and row["baseline"] is False


def test_dry_run_plans_against_the_stored_rows(tasks, no_gpu_and_empty_store, capsys):
    out = no_gpu_and_empty_store / "out"
    t = tasks["c/triad/small"]
    m = Measurement(t.baseline.sample_id, "ok", time_ms=0.01, reps=5)
    w = store.PartWriter(out, "h200")
    w.add([collect.row_for(t.baseline, m, {"gpu": GPU}, "main", "r0")])
    w.flush()
    n = len(t.candidates)
    assert M.main(["--task", "c/triad/small", "--counters", "all", "--out", str(out), "--dry-run",
                   "--gpu", GPU]) == 0
    err = capsys.readouterr().err
    assert f"{n} candidates    1 stored  {n - 1:>3} to measure  {n - 1:>3} with counters" in err
    assert f"1 tasks, {n - 1} samples to measure on {GPU}, {n - 1} with counters" in err
    # another GPU's rows are not this GPU's: everything is still to measure
    assert M.main(["--task", "c/triad/small", "--out", str(out), "--dry-run", "--gpu", "NVIDIA A100"]) == 0
    assert f"{n} samples to measure on NVIDIA A100, 0 with counters" in capsys.readouterr().err


def test_errors_are_one_line(no_gpu_and_empty_store, capsys):
    assert M.main(["--task", "c/nosuch", "--dry-run"]) == 2
    assert capsys.readouterr().err.strip().startswith("error: no c tasks match")
    assert M.main(["--counters", "2"]) == 2
    assert "share must be in [0, 1]" in capsys.readouterr().err
    assert M.main(["--task", "c/triad/small", "--gpu", GPU]) == 2             # --gpu only plans
    assert "only plans" in capsys.readouterr().err
    assert M.main(["--task", "c/triad/small"]) == 2                           # nothing to measure on
    assert "no NVIDIA GPU found" in capsys.readouterr().err.splitlines()[-1]


def test_reference_timings_file(tasks, tmp_path):
    sel = M.select_tasks(tasks, "c", ["triad"], ["small"])
    got = M.time_references(sel, float("inf"), sys.stderr, reps=2)
    assert [g["task_id"] for g in got] == ["c/triad/small"] and got[0]["ms"] > 0 and got[0]["reps"] == 2
    assert M.time_references(sel, time.monotonic() - 1, sys.stderr) == []   # budget spent
    w = store.PartWriter(tmp_path, "h200")
    path = M.reference_path(w, tmp_path, "r1")
    assert path == tmp_path / "c_reference-r1.json"                           # no part file written
    w.add([{"sample_id": "x", "gpu": GPU, "pass": "main"}])
    w.flush()
    path = M.reference_path(w, tmp_path, "r1")
    assert path.name == w.paths[0].name.replace(".parquet", ".c_reference.json")
    M.write_references(path, got, "r1", GPU)
    assert json.loads(path.read_text())["timings"][0]["task_id"] == "c/triad/small"
    assert store.part_files([tmp_path]) == w.paths                            # the store ignores it


class _FakeProfiler:
    """Stands in for analyzer.profile.Profiler: every job ok, counters where asked."""

    runs: list[tuple[int, int]] = []

    def __init__(self, settings, log=None):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def provenance(self):
        return {"gpu": GPU, "driver": "test"}

    def worker(self):
        return type("W", (), {"info": {"arch": "sm_90"}})()

    def run(self, jobs, counters=()):
        _FakeProfiler.runs.append((len(jobs), len(counters)))
        return [Measurement(j.id, "ok", time_ms=0.01, reps=5, counters={"gld_sectors": 1.0} if j.id in counters else {})
                for j in jobs]


def test_a_run_writes_rows_then_the_c_timings_and_resumes(tasks, no_gpu_and_empty_store, monkeypatch, capsys):
    import analyzer.profile as P

    out = no_gpu_and_empty_store / "out"
    monkeypatch.setattr(toolkit, "nvidia_smi", lambda *a, **k: [GPU])
    monkeypatch.setattr(P, "Profiler", _FakeProfiler)
    _FakeProfiler.runs = []
    n = len(tasks["c/triad/small"].candidates)
    assert M.main(["--task", "c/triad/small", "--counters", "all", "--chunk", "4", "--out", str(out),
                   "--reference-reps", "2"]) == 0
    assert _FakeProfiler.runs == [(4, 4), (n - 4, n - 4)]
    df = store.read([out])
    assert len(df) == n and set(df["family"]) == {"c_triad"} and df["has_counters"].all()
    assert (df["gpu"] == GPU).all() and set(df["variant"]) >= {"naive_port", "vec4"}
    refs = list(out.glob("*.c_reference.json"))
    assert len(refs) == 1 and json.loads(refs[0].read_text())["timings"][0]["task_id"] == "c/triad/small"
    # a second run finds everything stored: no profiling, only the timings (their own file)
    assert M.main(["--task", "c/triad/small", "--out", str(out), "--reference-reps", "2"]) == 0
    assert len(_FakeProfiler.runs) == 2 and "0 samples to measure" in capsys.readouterr().err
    assert len(list(out.glob("c_reference-*.json"))) == 1
