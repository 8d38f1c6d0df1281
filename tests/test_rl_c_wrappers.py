"""Host-wrapper candidates for c tasks (rl.tasks.c_wrapper): static launches, gates, build, and on a GPU the run."""
from __future__ import annotations

import ctypes
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from rl.tasks import get
from rl.tasks.c_kind import SUITE_DIR
from rl.tasks.c_wrapper import WrapperBuildError, build_library, evaluate_wrapper, is_wrapper

DATA = Path(__file__).resolve().parent / "data"
DOT = DATA / "wrapper_dot_two_pass.cu"
BUNDLED = sorted((SUITE_DIR / "wrappers").glob("*/*.cu"))


def _task_of(path: Path) -> str:
    return f"c/{path.parent.name}/medium"


def test_two_pass_dot_launches_are_computed():
    t = get("c/dot/medium")
    ev = evaluate_wrapper(t, DOT, device="cpu", model=None)
    assert ev.failed_gate is None and ev.gates["launches_own_kernel"].passed
    by = {r.kernel: r for r in ev.launches}
    assert by["partial_dot"].grid == (1024, 1, 1) and by["partial_dot"].block == (256, 1, 1)
    assert by["partial_dot"].args["n"] == 8388608
    assert by["final_sum"].grid == (1, 1, 1) and by["final_sum"].args["m"] == 1024
    small = evaluate_wrapper(get("c/dot/small"), DOT, device="cpu", model=None)
    assert {r.kernel: r.grid for r in small.launches}["partial_dot"] == (1024, 1, 1)    # min(cdiv(2^20, 256), 1024)


def test_the_prediction_is_the_sum_over_launches():
    from rewardmodel.surrogate import load_default

    ev = evaluate_wrapper(get("c/dot/medium"), DOT, device="cpu", model=load_default())
    assert ev.predicted_ms == pytest.approx(sum(r.predicted_ms for r in ev.launches))
    assert all(r.terms["coalescing"] is not None for r in ev.launches)


@pytest.mark.parametrize("edit, gate, why", [
    (lambda s: s.replace("cudaFree(part);", "cudaFree(part); cublasDdot(0, n, x, 1, y, 1, out);"),
     "no_library_call", "cublasDdot"),
    (lambda s: s.replace("cudaFree(part);", "cudaFree(part); cudaEvent_t e; cudaEventCreate(&e);"),
     "no_timers", "cudaEvent"),
    (lambda s: s.replace("    partial_dot<<<blocks, THREADS>>>(n, x, y, part);\n    final_sum<<<1, THREADS>>>(blocks, part, out);\n", "")
     + "\nvoid unused(int n, const double* x, double* out) { final_sum<<<1, 256>>>(n, x, out); }\n",
     "launches_own_kernel", "launches no kernel"),
])
def test_hacking_wrappers_fail_their_gate(tmp_path, edit, gate, why):
    p = tmp_path / "hack.cu"
    p.write_text(edit(DOT.read_text()))
    ev = evaluate_wrapper(get("c/dot/medium"), p, device="cpu")
    assert ev.gates[gate].passed is False and why in ev.gates[gate].detail, ev.gates


def test_a_wrapper_known_not_to_build_fails_the_builds_gate_on_a_cpu(tmp_path):
    """Where nothing is built, what the build is known to refuse (static shared memory over 48 KB,
    a warp intrinsic without a lane mask) fails `builds`, as the GPU's build would."""
    src = DOT.read_text()
    assert evaluate_wrapper(get("c/dot/medium"), DOT, device="cpu").gates["builds"].passed is None
    big = tmp_path / "big.cu"
    big.write_text(src.replace("__shared__ double s[THREADS];", "__shared__ double s[THREADS * 32];", 1))
    ev = evaluate_wrapper(get("c/dot/medium"), big, device="cpu")
    assert ev.failed_gate == "builds" and "65,536 B of static shared memory" in ev.gates["builds"].detail, ev.gates
    assert ev.gates["correct"].detail == "not run: it cannot build"
    # a launch of a __device__ function (CP702), an initialized __shared__ array (CP704)
    for broken, says in ((src.replace("__global__ void final_sum", "__device__ void final_sum", 1), "a __device__ function"),
                         (src.replace("__shared__ double s[THREADS];", "__shared__ double s[THREADS] = {0};", 1),
                          "has an initializer")):
        assert broken != src
        big.write_text(broken)
        ev = evaluate_wrapper(get("c/dot/medium"), big, device="cpu")
        assert ev.failed_gate == "builds" and says in ev.gates["builds"].detail, ev.gates


@pytest.mark.parametrize("edits, says", [
    ([("#include <cuda_runtime.h>", "#include <cuda_runtime.h>\n#include <algorithm>"),
      ("acc += x[i] * y[i];", "acc += std::min(x[i] * y[i], 1e300);")], "device code uses std::min"),
    ([("#define THREADS 256", "#define THREADS 256\nconstexpr double mul(double a, double b) { return a * b; }"),
      ("acc += x[i] * y[i];", "acc += mul(x[i], y[i]);")], "partial_dot calls mul, a constexpr host function"),
    # a __host__ __device__ helper calling std::min: nvcc warns and builds
    ([("#include <cuda_runtime.h>", "#include <cuda_runtime.h>\n#include <algorithm>\n"
       "__host__ __device__ double lo(double a) { return std::min(a, 1e300); }"),
      ("acc += x[i] * y[i];", "acc += lo(x[i] * y[i]);")], None),
])
def test_constexpr_host_functions_fail_a_wrappers_plain_nvcc_build(edits, says, tmp_path):
    """The wrapper is built by plain nvcc (no --expt-relaxed-constexpr): std::min or a constexpr
    helper in device code fails `builds` on a CPU, as nvcc itself does."""
    src = DOT.read_text()
    for old, new in edits:
        assert old in src
        src = src.replace(old, new, 1)
    path = tmp_path / "w.cu"
    path.write_text(src)
    ev = evaluate_wrapper(get("c/dot/medium"), path, device="cpu")
    if says:
        assert ev.failed_gate == "builds" and says in ev.gates["builds"].detail, ev.gates
    else:
        assert ev.gates["builds"].passed is None, ev.gates
    if shutil.which("nvcc"):
        built = subprocess.run(["nvcc", "-O3", "-arch=sm_90", "-c", str(path), "-o", str(tmp_path / "w.o")],
                               capture_output=True, text=True)
        assert (built.returncode != 0) == bool(says), built.stderr[-400:]


def test_a_wrapper_launch_known_to_fail_fails_the_launch_gate_on_a_cpu(tmp_path):
    """A launch of more threads a block than the kernel's __launch_bounds__ cannot run: on a CPU
    the `launch` gate says which one, as the reward's does for a kernel candidate."""
    src = DOT.read_text()
    bounded = tmp_path / "bounded.cu"
    bounded.write_text(src.replace("__global__ void partial_dot", "__global__ void __launch_bounds__(128) partial_dot", 1))
    assert bounded.read_text() != src
    ev = evaluate_wrapper(get("c/dot/medium"), bounded, device="cpu")
    assert ev.failed_gate == "launch", ev.gates
    assert "partial_dot's __launch_bounds__(128): the launch fails" in ev.gates["launch"].detail
    row = next(r for r in ev.launches if r.kernel == "partial_dot")
    assert row.launch_problem and ev.gates["launch"].detail.startswith(row.where)
    assert not next(r for r in ev.launches if r.kernel == "final_sum").launch_problem
    # more than 48 KB of shared memory a block, and the wrapper never raises the kernel's limit
    big = src.replace("partial_dot<<<blocks, THREADS>>>", "partial_dot<<<blocks, THREADS, 64 * 1024>>>", 1)
    assert big != src
    bounded.write_text(big)
    ev = evaluate_wrapper(get("c/dot/medium"), bounded, device="cpu")
    assert ev.failed_gate == "launch" and "67,584 B of shared memory a block, over the 49,152 B" in ev.gates["launch"].detail
    raised = big.replace("partial_dot<<<", "cudaFuncSetAttribute(partial_dot, cudaFuncAttributeMaxDynamicSharedMemorySize, "
                                           "64 * 1024);\n    partial_dot<<<", 1)
    bounded.write_text(raised)
    assert evaluate_wrapper(get("c/dot/medium"), bounded, device="cpu").failed_gate is None


def test_not_a_wrapper_without_the_c_function():
    t = get("c/dot/medium")
    assert is_wrapper(t, DOT.read_text())
    assert not is_wrapper(t, DOT.read_text().replace('extern "C" void dot(', 'extern "C" void dot_product('))
    assert not is_wrapper(get("c/gemm/small"), DOT.read_text())
    assert not is_wrapper(t, (SUITE_DIR / "dot.cu").read_text())      # the naive port: a kernel, no host code


def test_evaluate_cli_takes_a_wrapper(capsys):
    from rl import cli

    assert cli.main(["evaluate", "c/dot/medium", str(DOT), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["failed_gate"] is None and len(out["launches"]) == 2 and out["predicted_ms"] > 0
    assert out["baseline_ms"] > 0          # the naive port's stored H200 time


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_build_library_makes_a_loadable_library_and_reports_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path))
    so = build_library(DOT.read_text())
    assert so.is_file() and build_library(DOT.read_text()) == so       # cached by source hash
    assert hasattr(ctypes.CDLL(str(so)), "dot")
    with pytest.raises(WrapperBuildError, match="nvcc failed: .*error") as exc:
        build_library(DOT.read_text().replace("double acc = 0.0;", "double acc = ;", 1))
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_bundled_wrappers_pass_the_static_gates(path):
    t = get(_task_of(path))
    src = path.read_text()
    assert is_wrapper(t, src), f"{path}: no host function {t.meta['function']}"
    ev = evaluate_wrapper(t, path, device="cpu")
    assert ev.failed_gate is None, {k: g.detail for k, g in ev.gates.items() if g.passed is False}
    assert ev.launches and all(r.grid is not None for r in ev.launches), [(r.kernel, r.unresolved) for r in ev.launches]


@pytest.mark.gpu
class TestOnGPU:
    @pytest.fixture(autouse=True)
    def _gpu(self):
        from analyzer.profile import toolkit

        if not toolkit.has_gpu() or shutil.which("nvcc") is None:
            pytest.skip("needs an NVIDIA GPU and nvcc")

    @pytest.mark.parametrize("path", [DOT, *BUNDLED], ids=lambda p: f"{p.parent.name}/{p.stem}")
    def test_wrapper_is_correct_and_timed(self, path):
        task = "c/dot/medium" if path == DOT else _task_of(path)
        ev = evaluate_wrapper(get(task), path, reps=5)
        assert ev.gates["builds"].passed and ev.gates["correct"].passed, ev.gates
        assert ev.measured_ms > 0

    def test_a_wrong_wrapper_fails_correct(self, tmp_path):
        p = tmp_path / "wrong.cu"
        p.write_text(DOT.read_text().replace("acc += x[i] * y[i];", "acc += x[i];"))
        ev = evaluate_wrapper(get("c/dot/small"), p, reps=2)
        assert ev.gates["correct"].passed is False and "differs from the C reference" in ev.gates["correct"].detail
