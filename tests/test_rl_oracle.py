"""rl.oracle: replay of the measured corpus, the local GPU profiler and the Ray pool.

Replay and the Ray pool (CPU actors around Replay, a real local Ray cluster) run here; the
LocalGPU and GPU-actor tests need an NVIDIA GPU and skip without one.
"""
from __future__ import annotations

import functools
import math
import random
import sys
from dataclasses import replace

import pytest

pytest.importorskip("pandas")

from analyzer.profile import Measurement, toolkit  # noqa: E402
from corpus import store  # noqa: E402
from rl.oracle import LocalGPU, Replay, answer_from, make_oracle  # noqa: E402
from rl.records import NotMeasured  # noqa: E402
from rl.tasks import family_tasks  # noqa: E402

GPU = "NVIDIA H200"


@pytest.fixture(scope="module")
def frame():
    return store.read()


@pytest.fixture(scope="module")
def replay(frame):
    return Replay(frame=frame)


@pytest.fixture(scope="module")
def main_rows(frame):
    rows = frame[(frame["gpu"] == GPU) & (frame["pass"] == "main")]
    return {r["sample_id"]: r for r in rows.to_dict("records")}


@pytest.fixture(scope="module")
def measured(replay):
    """Measured candidates of many tasks across the families, in a fixed shuffled order."""
    out = [c for t in family_tasks().values() for c in t.candidates[:3] if replay.has(c)]
    random.Random(5).shuffle(out)
    return out


def changed(sample):
    """The same candidate with one more line of source: a new kernel nobody measured."""
    return replace(sample, source=sample.source + "\n// an edit the corpus never saw\n")


# ---------------------------------------------------------------------------- Replay
def test_replay_answers_are_the_stored_rows(replay, main_rows, measured):
    picks = measured[:12]
    assert len({s.family for s in picks}) > 3
    for s, a in zip(picks, replay.measure(picks)):
        row = main_rows[s.sample_id]
        assert a.sample_id == s.sample_id and a.origin == "replay"
        assert a.status == row["status"]
        assert a.time_ms == row["time_ms"]
        assert a.compile_s == row["compile_s"] and a.run_s == row["run_s"]
        assert a.cost_s == pytest.approx(row["compile_s"] + row["run_s"])
        assert a.ok and a.time_ms > 0


def test_replay_keeps_the_main_row_when_a_noise_row_exists(frame, replay):
    noise = frame[(frame["gpu"] == GPU) & (frame["pass"] == "noise")]
    main = frame[(frame["gpu"] == GPU) & (frame["pass"] == "main")].set_index("sample_id")
    differing = [(sid, t) for sid, t in zip(noise["sample_id"], noise["time_ms"]) if t != main.loc[sid, "time_ms"]]
    assert differing, "the corpus has noise rows with their own times"
    by_id = {c.sample_id: c for t in family_tasks().values() for c in t.candidates}
    checked = 0
    for sid, noise_t in differing:
        if sid in by_id:
            a = replay.measure([by_id[sid]])[0]
            assert a.time_ms == main.loc[sid, "time_ms"] != noise_t
            checked += 1
    assert checked > 0


def test_replay_refuses_a_candidate_never_measured(replay, measured):
    s = changed(measured[0])
    assert not replay.has(s) and s.sample_id not in replay.known_ids()
    with pytest.raises(NotMeasured) as err:
        replay.measure([measured[1], s])
    msg = str(err.value)
    assert "\n" not in msg
    for part in (s.task_id, s.variant, s.sample_id, "never measured", GPU):
        assert part in msg


def test_replay_counts_every_missing_candidate_in_the_message(replay, measured):
    with pytest.raises(NotMeasured, match=r"and 2 more in this batch"):
        replay.measure([changed(measured[0]), measured[1], changed(measured[2]), changed(measured[3])])


def test_replay_preserves_order_and_repeats_in_a_mixed_batch(replay, measured):
    batch = measured[:40] + [measured[7], measured[0]]
    answers = replay.measure(batch)
    assert [a.sample_id for a in answers] == [s.sample_id for s in batch]
    assert answers[-1] == answers[0] and answers[-2] == answers[7]
    assert replay.measure([]) == []


def test_replay_knows_exactly_the_main_rows_of_its_gpu(replay, main_rows, measured):
    assert replay.known_ids() == frozenset(main_rows)
    assert len(replay) == len(main_rows)
    assert replay.has(measured[0]) and replay.has(measured[0].sample_id)


def test_replay_from_data_dirs_matches_the_frame(replay, measured):
    again = Replay(data_dirs=[store.DATA_DIR])
    assert again.known_ids() == replay.known_ids()
    assert again.measure(measured[:5]) == replay.measure(measured[:5])


def test_replay_rejects_an_unknown_gpu_and_a_frame_without_store_columns(frame):
    with pytest.raises(ValueError, match=r"no measured rows for GPU 'Tesla K80' \(GPUs with data: NVIDIA H200\)"):
        Replay(frame=frame, gpu="Tesla K80")
    with pytest.raises(ValueError, match="missing column"):
        Replay(frame=frame.drop(columns=["run_s"]))


def test_replay_answers_a_stored_failure_as_an_answer(frame, measured):
    # the H200 corpus happens to be all "ok": a row as a crash would store it, on a copy
    sid = measured[0].sample_id
    crashed = frame.copy()
    at = (crashed["sample_id"] == sid) & (crashed["pass"] == "main")
    crashed.loc[at, ["status", "message", "time_ms"]] = ["crash", "illegal memory access", math.nan]
    a = Replay(frame=crashed).measure([measured[0]])[0]
    assert (a.status, a.message, a.time_ms, a.ok) == ("crash", "illegal memory access", None, False)
    assert a.cost_s > 0


# ---------------------------------------------------------------------------- factory, LocalGPU on a CPU
def test_make_oracle_by_name(frame):
    assert isinstance(make_oracle("replay", frame=frame), Replay)
    assert isinstance(make_oracle("gpu", timeout_s=5), LocalGPU)
    with pytest.raises(ValueError, match=r"unknown oracle 'tpu' \(known: replay, gpu, ray\)"):
        make_oracle("tpu")
    with pytest.raises(ValueError, match="oracle 'gpu': .*'timout_s'"):
        make_oracle("gpu", timout_s=5)


def test_answer_from_a_profiler_measurement():
    m = Measurement("abc", "compile_error", "error: expected ';'")   # NaN time, compile and run seconds
    a = answer_from(m, "gpu")
    assert (a.sample_id, a.status, a.time_ms, a.compile_s, a.run_s, a.origin) == ("abc", "compile_error", None, 0.0, 0.0, "gpu")
    ok = Measurement("def", "ok", time_ms=0.5, compile_s=0.2, run_s=0.1)
    assert answer_from(ok, "gpu", compile_s=0.0).cost_s == pytest.approx(0.1)


@pytest.mark.skipif(toolkit.has_gpu(), reason="checks the error on a machine without a GPU")
def test_local_gpu_without_a_gpu_is_a_one_line_error(measured):
    oracle = LocalGPU()
    assert oracle.measure([]) == []
    with pytest.raises(RuntimeError, match=r"^no CUDA GPU: [^\n]*$"):
        oracle.measure(measured[:1])
    oracle.close()


# ---------------------------------------------------------------------------- split (RayPool's batching)
def test_split_keeps_problems_together_and_balances(measured):
    from analyzer.profile.records import problem_key
    from rl.ray_pool import split

    batch = measured[:50]
    parts = split(batch, 3)
    assert sorted(i for p in parts for i in p) == list(range(len(batch)))
    assert max(map(len, parts)) - min(map(len, parts)) <= max(1, -(-len(batch) // 3))
    key = [problem_key(s.problem, s.problem_kwargs) for s in batch]
    for k in set(key):      # small problems are never cut
        members = {i for i, kk in enumerate(key) if kk == k}
        assert sum(bool(members & set(p)) for p in parts) == 1
    # one big problem is cut into fair shares instead of leaving a worker idle
    one = [c for c in next(iter(family_tasks().values())).candidates][:9]
    assert sorted(map(len, split(one, 3))) == [3, 3, 3]
    with pytest.raises(ValueError):
        split(batch, 0)


# ---------------------------------------------------------------------------- RayPool
def test_ray_pool_without_ray_says_how_to_install(monkeypatch):
    from rl.ray_pool import RayPool

    monkeypatch.setitem(sys.modules, "ray", None)     # import ray -> ImportError
    with pytest.raises(RuntimeError, match=r"pip install cudaperf\[ray\]"):
        RayPool()


@pytest.fixture(scope="module")
def ray_local():
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        ray.shutdown()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def cpu_pool(ray_local):
    from rl.ray_pool import RayPool

    pool = RayPool(gpus=2, oracle_factory=functools.partial(Replay, gpu=GPU), gpus_per_actor=0)
    yield pool
    pool.close()
    assert ray_local.is_initialized(), "a pool leaves a Ray it did not start running"


def test_ray_pool_of_cpu_actors_answers_like_replay(cpu_pool, replay, measured):
    batch = measured[:50]
    got = cpu_pool.measure(batch)
    assert cpu_pool.size == 2
    want = replay.measure(batch)
    assert [a.origin for a in got] == ["ray"] * len(batch)
    assert [replace(a, origin="replay") for a in got] == want
    # a reversed batch comes back reversed: order is the caller's, not the actors'
    assert [a.sample_id for a in cpu_pool.measure(batch[::-1])] == [s.sample_id for s in batch[::-1]]


def test_ray_pool_refuses_an_unmeasured_candidate_in_one_line(cpu_pool, measured):
    s = changed(measured[4])
    with pytest.raises(NotMeasured) as err:
        cpu_pool.measure(measured[:6] + [s])
    assert type(err.value) is NotMeasured                 # not Ray's wrapped remote traceback
    assert "\n" not in str(err.value) and s.sample_id in str(err.value)


def test_ray_pool_reports_a_broken_actor_in_one_line(ray_local, measured):
    from rl.ray_pool import RayPool

    pool = RayPool(gpus=1, oracle_factory=functools.partial(Replay, gpu="Tesla K80"), gpus_per_actor=0)
    try:
        with pytest.raises(RuntimeError, match=r"^ray worker failed: ValueError: no measured rows for GPU 'Tesla K80'"):
            pool.measure(measured[:2])
    finally:
        pool.close()


@pytest.mark.skipif(toolkit.has_gpu(), reason="checks the error on a cluster without a GPU")
def test_ray_pool_of_gpu_actors_needs_a_gpu(ray_local, measured):
    from rl.ray_pool import RayPool

    for pool in (RayPool(), RayPool(gpus=2)):   # every GPU there is (none), or more than there are
        with pytest.raises(RuntimeError, match=r"^no GPU in the Ray cluster for .* \(it has 0\)"):
            pool.measure(measured[:1])
        assert pool.size == 0
    assert ray_local.is_initialized()


# ---------------------------------------------------------------------------- on a real GPU
def _gpu_samples():
    """The baseline of reduction/n1M and three more candidates: a different source, and two
    launches (block sizes) of one more source."""
    task = family_tasks()["reduction/n1M"]
    by_variant = {c.variant: c for c in task.candidates}
    picks = [task.baseline] + [by_variant[v] for v in ("sequential_b256", "atomic_b256", "atomic_b1024")]
    assert len({p.source_hash for p in picks}) == 3 and picks[2].source_hash == picks[3].source_hash
    return picks


needs_gpu = pytest.mark.skipif(not (toolkit.has_gpu() and toolkit.have_nvrtc()),
                               reason="needs an NVIDIA GPU and cuda-bindings")


@pytest.mark.gpu
@needs_gpu
def test_local_gpu_measures_real_family_samples(tmp_path):
    from analyzer.profile import Settings, Timing

    base, other, third, sibling = _gpu_samples()
    broken = replace(other, source=other.source.replace("}", "", 1))
    oracle = LocalGPU(Settings(timeout_s=20.0, cache_dir=str(tmp_path), timing=Timing(min_reps=10, max_reps=20)))
    try:
        batch = [third, broken, base, other, sibling]
        answers = oracle.measure(batch)
        assert [a.sample_id for a in answers] == [s.sample_id for s in batch]
        assert answers[1].status == "compile_error" and answers[1].time_ms is None and answers[1].message
        for a in answers[:1] + answers[2:]:
            assert a.status == "ok", a.message
            assert a.time_ms > 0 and a.origin == "gpu" and a.run_s > 0
        # a fresh cache: each source compiled once, and the sibling launch of a built source pays no compile
        assert answers[0].compile_s > 0 and answers[2].compile_s > 0 and answers[3].compile_s > 0
        assert answers[4].compile_s == 0.0
        again = oracle.measure([base])[0]
        assert again.ok and again.compile_s == 0.0 and again.run_s > 0   # built already: only the run is paid
    finally:
        oracle.close()


@pytest.mark.gpu
@needs_gpu
def test_ray_pool_of_one_gpu_actor_measures(ray_local):
    from rl.ray_pool import RayPool

    pool = RayPool(gpus=1)
    try:
        samples = _gpu_samples()[:3]
        answers = pool.measure(samples)
        assert [a.sample_id for a in answers] == [s.sample_id for s in samples]
        assert all(a.ok and a.time_ms > 0 and a.origin == "ray" for a in answers), answers
    finally:
        pool.close()
