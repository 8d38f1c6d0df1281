"""The profiler's CPU side: options, cache keys, ptxas log, problems, ncu CSV, status bookkeeping."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from analyzer.profile import build, counters, problems, toolkit
from analyzer.profile.api import Profiler, Settings, group_by_problem, measurement_from
from analyzer.profile.records import Job, Measurement, one_line, problem_key
from analyzer.profile.runner import Timing, poison_pattern
from analyzer.profile.selftest import gather_job, gather_problem
from analyzer.profile.spec import Buffer

FIXTURES = Path(__file__).parent / "fixtures"


# ---- builder options and cache keys -------------------------------------------
def test_compile_options_target_a_real_arch_with_headers(tmp_path):
    (tmp_path / "cccl").mkdir()
    opts = build.compile_options("sm_90", str(tmp_path))
    assert "--gpu-architecture=sm_90" in opts
    assert f"--include-path={tmp_path}" in opts
    assert f"--include-path={tmp_path / 'cccl'}" in opts
    assert "--ptxas-options=-v" in opts
    assert not any(o.startswith("--include-path") for o in build.compile_options("sm_90", None))


def test_compile_options_reject_virtual_arch():
    with pytest.raises(ValueError):
        build.compile_options("compute_90", None)


def test_cache_key_changes_with_every_input():
    base = build.cache_key("src", "k", ["-a"], "13.0")
    assert base == build.cache_key("src", "k", ["-a"], "13.0")
    variants = [build.cache_key("src2", "k", ["-a"], "13.0"), build.cache_key("src", "k2", ["-a"], "13.0"),
                build.cache_key("src", "k", ["-b"], "13.0"), build.cache_key("src", "k", ["-a"], "13.1")]
    assert len({base, *variants}) == 5


def test_parse_ptxas_log_per_function():
    log = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z3redILi256EEvPKfPfi' for 'sm_90'
ptxas info    : Function properties for _Z3redILi256EEvPKfPfi
ptxas         .     16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem, 364 bytes cmem[0]
ptxas info    : Compiling entry function 'other' for 'sm_90'
ptxas info    : Function properties for other
ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
"""
    res = build.parse_ptxas_log(log)
    assert res["_Z3redILi256EEvPKfPfi"] == {"stack_bytes": 16, "spill_stores": 8, "spill_loads": 4,
                                            "registers": 40, "static_smem": 1024}
    assert res["other"]["registers"] == 8 and res["other"]["static_smem"] == 0


def test_one_line_prefers_the_error_line():
    log = 'kernel.cu(3): warning: unused\nkernel.cu(4): error: identifier "b" is undefined\n  a = b;\n'
    assert one_line(log) == 'kernel.cu(4): error: identifier "b" is undefined'
    assert len(one_line("x" * 1000)) == 300


needs_nvrtc = pytest.mark.skipif(not toolkit.have_nvrtc(), reason="needs cuda-bindings with NVRTC")


@needs_nvrtc
def test_build_caches_success_and_failure(tmp_path):
    job = gather_job("ok")
    first = build.build(job.source, job.kernel, "sm_90", tmp_path)
    assert first.ok and not first.cached and Path(first.cubin_path).stat().st_size > 0
    assert first.lowered_name == "gather" and first.resources["registers"] > 0
    again = build.build(job.source, job.kernel, "sm_90", tmp_path)
    assert again.ok and again.cached and again.cubin_path == first.cubin_path
    broken = gather_job("compile_error")
    bad = build.build(broken.source, broken.kernel, "sm_90", tmp_path)
    assert not bad.ok and "undefined_name" in bad.log
    assert build.build(broken.source, broken.kernel, "sm_90", tmp_path).cached


@needs_nvrtc
def test_build_template_kernel_and_toolkit_headers(tmp_path):
    src = """#include <cuda_fp16.h>
#include <cuda_bf16.h>
template <int B> __global__ void scale(const __half* x, __nv_bfloat16* y, int n) {
    int i = blockIdx.x * B + threadIdx.x;
    if (i < n) y[i] = __float2bfloat16(__half2float(x[i]) * 2.0f);
}
template __global__ void scale<128>(const __half*, __nv_bfloat16*, int);
"""
    if toolkit.cuda_include_dir() is None:
        pytest.skip("no CUDA headers on this machine")
    res = build.build(src, "scale<128>", "sm_90", tmp_path)
    assert res.ok, res.log
    assert res.lowered_name.startswith("_Z") and "scale" in res.lowered_name


# ---- problems -------------------------------------------------------------------
def test_prepare_and_validate_problem(tmp_path):
    job = gather_job("ok", n=1000, stride=2)
    prep = problems.prepare(job.problem, job.problem_kwargs, job.problem_key, str(tmp_path))
    assert prep.error == ""
    x = problems.load(prep.dir, "in", "x")
    y = problems.load(prep.dir, "exp", "y")
    assert x.shape == (2000,) and np.array_equal(np.asarray(y), np.asarray(x)[::2])
    assert problems.validate(prep.dir, job.buffers) == ""
    assert "wants (5,)" in problems.validate(prep.dir, [Buffer("x", "float32", 5, "in")])
    assert "float64" in problems.validate(prep.dir, [Buffer("x", "float64", 2000, "in")])
    assert "no expected output" in problems.validate(prep.dir, [Buffer("z", "float32", 5, "out")])
    # a second call finds the finished directory
    assert problems.prepare(job.problem, job.problem_kwargs, job.problem_key, str(tmp_path)).build_s == 0.0


def test_failing_problem_is_an_error_not_an_exception(tmp_path):
    prep = problems.prepare("analyzer.profile.selftest:gather_problem", {"n": -1}, "k", str(tmp_path))
    assert prep.error.startswith("problem analyzer.profile.selftest:gather_problem")


def test_problem_key_ignores_kwarg_order():
    assert problem_key("m:f", {"a": 1, "b": 2}) == problem_key("m:f", {"b": 2, "a": 1})
    assert problem_key("m:f", {"a": 1}) != problem_key("m:f", {"a": 2})


# ---- runner helpers -------------------------------------------------------------
def test_poison_patterns_read_as_nan():
    for dtype, np_dtype in (("float32", np.float32), ("float64", np.float64), ("float16", np.float16)):
        width, value = poison_pattern(dtype)
        raw = np.full(8 // width, value, dtype={1: np.uint8, 2: np.uint16, 4: np.uint32}[width]).view(np_dtype)
        assert np.isnan(raw).all(), dtype
    width, value = poison_pattern("bfloat16")
    from analyzer.profile.spec import bf16_to_f32
    assert np.isnan(bf16_to_f32(np.array([value], dtype=np.uint16))).all()
    assert poison_pattern("int32") == (1, 0xFF)


def test_reps_adapt_to_kernel_length():
    t = Timing(min_reps=20, max_reps=100, target_s=0.03)  # explicit: the test does not follow the defaults
    assert t.reps_for(0.001) == 100
    assert t.reps_for(1.0) == 30
    assert t.reps_for(50.0) == 20
    assert t.reps_for(float("nan")) == 100


# ---- ncu CSV --------------------------------------------------------------------
def _fixture_csv() -> str:
    path = FIXTURES / "ncu_raw.csv"
    if not path.is_file():
        pytest.skip("ncu fixture not captured yet")
    return path.read_text()


def test_parse_real_ncu_csv():
    rows = counters.parse_csv(_fixture_csv())
    assert rows, "no rows parsed"
    assert all(r["ID"].isdigit() for r in rows)
    values = counters.counters_from_row(rows[0])
    assert set(values) == set(counters.METRICS)
    assert all(not math.isnan(v) for k, v in values.items() if k in ("gld_requests", "ncu_time_ns", "ncu_registers"))


def test_match_rows_stops_at_a_mismatch():
    job_a = gather_job("ok", n=256, block=256)
    job_b = gather_job("wrong", n=512, block=256)
    items = [counters.CounterItem(job_a, "", "gather", ""), counters.CounterItem(job_b, "", "gather", "")]
    metric = counters.METRICS["gld_sectors"]
    rows = [{"ID": "0", "Kernel Name": "gather", "Grid Size": "(1, 1, 1)", "Block Size": "(256, 1, 1)", metric: "8"},
            {"ID": "1", "Kernel Name": "gather", "Grid Size": "(2, 1, 1)", "Block Size": "(256, 1, 1)", metric: "1,024"}]
    got = counters.match_rows(rows, items)
    assert got[job_a.id]["gld_sectors"] == 8 and got[job_b.id]["gld_sectors"] == 1024
    rows[0]["Grid Size"] = "(9, 1, 1)"          # a row that fits no launch is dropped, the next still matches
    assert set(counters.match_rows(rows, items)) == {job_b.id}
    assert counters.match_rows(rows[1:], items)[job_b.id]["gld_sectors"] == 1024  # ncu skipped launch 0


def test_template_kernel_row_matches_its_name_expression():
    job = Job("j", "", "reduce<256>", (4, 1, 1), (256, 1, 1), (), "m:f")
    item = counters.CounterItem(job, "", "_Z6reduceILi256EEvPKfPfi", "")
    row = {"Kernel Name": "void reduce<256>(const float *, float *, int)", "Grid Size": "(4, 1, 1)",
           "Block Size": "(256, 1, 1)"}
    row2 = {"Kernel Name": "reduce<256>(const float *, float *, int)", "Grid Size": "4, 1, 1", "Block Size": "256, 1, 1"}
    assert counters.kernel_matches(row, item) and counters.kernel_matches(row2, item)
    assert counters.kernel_matches({**row, "Kernel Name": "reduce"}, item)
    assert counters.kernel_matches({**row, "Kernel Name": "_Z6reduceILi256EEvPKfPfi"}, item)
    assert not counters.kernel_matches({**row, "Kernel Name": "void reduce_other<256>(float *)"}, item)
    assert not counters.kernel_matches({**row, "Grid Size": "(8, 1, 1)"}, item)


def test_ncu_command_leaves_clocks_alone():
    cmd = counters.ncu_command("ncu", ["a.sum", "b.sum"], "/tmp/x.csv", ["python", "child.py"])
    assert cmd[cmd.index("--clock-control") + 1] == "none"
    assert "a.sum,b.sum" in cmd and cmd[-2:] == ["python", "child.py"]


# ---- orchestration with a fake GPU worker -----------------------------------------
class FakeWorker:
    """Stands in for the GPU: answers by the job id's first word, records what it saw."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.info = {"gpu": "Fake", "arch": "sm_90", "driver_cuda": 13000}

    def run(self, req, prepare_timeout_s, timeout_s):
        self.seen.append(req.job.id)
        kind = req.job.id.split("_")[0]
        if kind == "ok":
            return {"status": "ok", "time_ms": 1.0, "p10_ms": 0.9, "p90_ms": 1.1, "reps": 20, "registers": 12}
        if kind == "wrong":
            return {"status": "wrong_result", "message": "3 of 10 elements wrong", "frac_wrong": 0.3}
        return {"status": "timeout", "message": "no result"}

    def stop(self):
        pass


@needs_nvrtc
def test_profiler_bookkeeping_with_fake_worker(tmp_path, monkeypatch):
    fake = FakeWorker()
    prof = Profiler(Settings(cache_dir=str(tmp_path / "c"), work_dir=str(tmp_path), compile_workers=1, problem_workers=1))
    monkeypatch.setattr(prof, "worker", lambda: fake)
    asked = {}

    def fake_collect(items, **kw):
        asked["ids"] = [it.job.id for it in items]
        return {items[0].job.id: {"gld_sectors": 4.0}}

    monkeypatch.setattr(counters, "collect", fake_collect)
    jobs = [gather_job("ok", n=64), gather_job("wrong", n=64), gather_job("compile_error", n=64),
            gather_job("hang", n=128), gather_job("ok", n=128)]
    bad_input = Job("ok_badinput", jobs[0].source, "gather", (1, 1, 1), (64, 1, 1),
                    (Buffer("missing", "float32", 4, "in"),), jobs[0].problem, {"n": 64, "stride": 1, "seed": 0})
    with prof:
        got = {m.job_id: m for m in prof.run(jobs + [bad_input], counters={jobs[0].id, jobs[1].id})}
    assert got[jobs[0].id].status == "ok" and got[jobs[0].id].counters == {"gld_sectors": 4.0}
    assert got[jobs[1].id].status == "wrong_result" and got[jobs[1].id].counters == {}
    assert got[jobs[2].id].status == "compile_error" and "undefined_name" in got[jobs[2].id].log
    assert got[jobs[3].id].status == "timeout"
    assert got[jobs[4].id].status == "ok" and got[jobs[4].id].spill_stores == 0
    assert asked["ids"] == [jobs[0].id]             # only ok jobs that were asked for go to ncu
    assert jobs[2].id not in fake.seen               # compile errors never reach the GPU
    # a buffer the problem lacks is caught before the GPU
    assert got[bad_input.id].status == "input_error" and "missing" in got[bad_input.id].message
    assert bad_input.id not in fake.seen


def test_group_by_problem_keeps_first_seen_order():
    a1, b1, a2 = gather_job("ok", n=64), gather_job("ok", n=128), gather_job("wrong", n=64)
    groups = group_by_problem([a1, b1, a2])
    assert [[j.id for j in g] for g in groups.values()] == [[a1.id, a2.id], [b1.id]]


def test_measurement_from_fills_compile_resources():
    job = gather_job("ok")
    built = build.BuildResult(ok=True, key="k", resources={"registers": 9, "spill_stores": 1, "spill_loads": 2,
                                                           "stack_bytes": 3, "static_smem": 0}, compile_s=0.5)
    m = measurement_from(job, built, {"status": "ok", "time_ms": 2.0, "context_dead": False})
    assert (m.registers, m.spill_stores, m.spill_loads, m.stack_bytes, m.compile_s) == (9, 1, 2, 3, 0.5)
    with pytest.raises(ValueError):
        Measurement("x", "exploded")


def test_gather_problem_reference():
    p = gather_problem(4, stride=3, seed=1)
    assert np.array_equal(p.expected["y"], p.inputs["x"][[0, 3, 6, 9]])


def test_compile_workers_compile_past_the_drivers_cache(tmp_path, monkeypatch):
    """Their NVRTC would give no ptxas log for a source the machine compiled before (a GPU
    driver's ~/.nv/ComputeCache); the pool's workers turn that cache off, this process does not."""
    import os

    monkeypatch.delenv("CUDA_CACHE_DISABLE", raising=False)
    prof = Profiler(Settings(cache_dir=str(tmp_path / "c"), work_dir=str(tmp_path), compile_workers=1, problem_workers=1))
    with prof:
        prof._pools()
        assert prof._compile_pool.submit(os.getenv, "CUDA_CACHE_DISABLE").result(timeout=120) == "1"
    assert "CUDA_CACHE_DISABLE" not in os.environ
