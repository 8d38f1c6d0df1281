"""The profiler on a real GPU: statuses, isolation, timing and counters. Skipped without a GPU."""
from __future__ import annotations

import math

import pytest

from analyzer.profile import toolkit

pytestmark = pytest.mark.gpu

if not toolkit.has_gpu() or not toolkit.have_nvrtc():
    pytest.skip("needs an NVIDIA GPU and cuda-bindings", allow_module_level=True)

from analyzer.profile import Profiler, Settings, Timing  # noqa: E402
from analyzer.profile.selftest import gather_job  # noqa: E402


@pytest.fixture(scope="module")
def prof(tmp_path_factory):
    settings = Settings(timeout_s=10.0, cache_dir=str(tmp_path_factory.mktemp("cubins")),
                        timing=Timing(min_reps=20, max_reps=40))
    with Profiler(settings) as p:
        yield p


def run(prof, jobs, **kw):
    return {m.job_id: m for m in prof.run(jobs, **kw)}


def test_correct_kernel_passes_and_is_timed(prof):
    job = gather_job("ok")
    m = run(prof, [job])[job.id]
    assert m.status == "ok", m.message
    assert m.time_ms > 0 and m.p10_ms <= m.time_ms <= m.p90_ms
    assert m.reps >= 20
    assert m.max_abs_err == 0.0 and m.frac_wrong == 0.0
    assert m.registers > 0


def test_wrong_kernel_is_wrong_result(prof):
    job = gather_job("wrong")
    m = run(prof, [job])[job.id]
    assert m.status == "wrong_result"
    assert m.frac_wrong > 0.9 and m.max_abs_err > 0


def test_unwritten_element_is_caught(prof):
    job = gather_job("skip_last")
    m = run(prof, [job])[job.id]
    assert m.status == "wrong_result"
    assert "1 of" in m.message and "NaN" in m.message


def test_out_of_bounds_costs_only_that_sample(prof):
    bad, good = gather_job("oob"), gather_job("ok", n=1 << 16)
    got = run(prof, [bad, good])
    assert got[bad.id].status in ("crash", "launch_error"), got[bad.id]
    assert got[good.id].status == "ok", got[good.id].message


def test_hang_is_timeout_and_batch_goes_on(prof):
    hang, good = gather_job("hang", n=1 << 10), gather_job("ok", n=1 << 12)
    got = run(prof, [hang, good])
    assert got[hang.id].status == "timeout"
    assert got[good.id].status == "ok", got[good.id].message


def test_compile_error_has_log(prof):
    job = gather_job("compile_error")
    m = run(prof, [job])[job.id]
    assert m.status == "compile_error"
    assert "undefined_name" in m.log and "error" in m.message


def test_the_reward_gates_fail_what_the_gpu_fails(prof):
    """A launch of more threads than the kernel's __launch_bounds__ fails on the GPU and at the
    reward's launch gate; an overloaded kernel name, `extern __shared__` arrays of one name and two
    types, a vote without a lane mask and a `__half` times a float fail the build by name expression
    and the reward's compile gate (the gates decided without a GPU or a compiler)."""
    from dataclasses import replace

    from rewardmodel.reward import reward

    ok = gather_job("ok", n=1 << 12, block=256)
    plain = ok.source.replace('extern "C" ', "")
    over = replace(ok, id="over_bounds", source=ok.source.replace("__global__ void", "__global__ void __launch_bounds__(128)"))
    twin = replace(ok, id="overloaded", source=plain + plain.replace("const float*", "const double*").replace(
        "float* __restrict__ y", "double* __restrict__ y"))
    # SM203's case: two extern shared arrays of one name and two types; SY302's: a vote without a mask
    stage = ("__global__ void stage_T(const T* x, T* y) { extern __shared__ T buf[]; buf[threadIdx.x] = x[threadIdx.x]; "
             "__syncthreads(); y[threadIdx.x] = buf[0]; }\n")
    extern = replace(ok, id="extern_twice", source=ok.source + stage.replace("T", "float") + stage.replace("T", "int"))
    vote = replace(ok, id="legacy_vote", source=ok.source.replace("if (i < n)", "if (__any(i < n) && i < n)"))
    # CP706's case: a __half times a float (ambiguous)
    mixed = replace(ok, id="half_times_float", source="#include <cuda_fp16.h>\n" + ok.source +
                    "__global__ void scale_half(__half* y, float a) { y[threadIdx.x] = y[threadIdx.x] * a; }\n")
    got = run(prof, [ok, over, twin, extern, vote, mixed])
    assert got[ok.id].status == "ok", got[ok.id].message
    assert got[over.id].status == "launch_error", got[over.id]
    for job in (twin, extern, vote, mixed):
        assert got[job.id].status == "compile_error", got[job.id]
    launch = dict(grid=ok.grid, block=ok.block, args={"n": 1 << 12, "stride": 1})
    assert reward(ok.source, "gather", **launch)[0].failed_gate is None
    assert reward(over.source, "gather", **launch)[0].failed_gate == "launch"
    for job in (twin, extern, vote, mixed):
        assert reward(job.source, "gather", **launch)[0].failed_gate == "compile", job.id


@pytest.mark.skipif(toolkit.ncu_path() is None, reason="needs ncu")
def test_counters_coalesced_vs_strided(prof):
    coalesced = gather_job("ok", n=1 << 20, stride=1)
    strided = gather_job("ok", n=1 << 20, stride=32)
    got = run(prof, [coalesced, strided], counters=True)
    per_req = {}
    for job in (coalesced, strided):
        c = got[job.id].counters
        assert c, f"no counters for {job.id}"
        per_req[job.id] = c["gld_sectors"] / c["gld_requests"]
    assert math.isclose(per_req[coalesced.id], 4.0, rel_tol=0.15), per_req
    assert math.isclose(per_req[strided.id], 32.0, rel_tol=0.15), per_req
