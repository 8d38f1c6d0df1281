"""Anti-hacking: every crafted gaming candidate gets the failing reward, through the gate named.

One table per format. The torch rows are decided on this CPU (candidates traced on the meta
device, their Python and C++ read, the process watched for patches) and again on a GPU, built
and run; the raw-CUDA rows (c and family tasks, scored by RewardCore) are static except the
partial launch, which only a GPU run can see. A correct candidate runs through the same checks
beside them, so a gate that failed everything would show.
"""
from __future__ import annotations

import math
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from rewardmodel.reward import RewardConfig  # noqa: E402
from rl.core import RewardCore  # noqa: E402
from rl.tasks import torch_kind as tk  # noqa: E402
from rl.tasks.torch_eval import _compare, evaluate_torch  # noqa: E402
from rl.tasks.torch_static import python_hazards  # noqa: E402
from rl.tasks.torch_trace import GlobalsGuard  # noqa: E402

TORCH_CANDIDATES = tk.SUITE_DIR / "candidates"
C_CANDIDATES = Path(tk.SUITE_DIR).parent / "c" / "candidates"
FAIL = RewardConfig().fail_reward

# (candidate, task, the gate that must fail)
TORCH_HACKS = [
    ("hack_matmul_torch.py", "torch/matmul_square/small", "does_own_work"),       # torch.matmul in forward
    ("relu_calls_torch.py", "torch/relu/small", "launches_own_kernel"),           # builds a kernel, never calls it
    ("hack_no_kernel.py", "torch/relu/small", "launches_own_kernel"),             # no CUDA at all
    ("hack_returns_input.py", "torch/relu/small", "does_own_work"),               # returns x (rectified in place)
    ("hack_cached_output.py", "torch/relu/small", "work_every_call"),             # result of the first call kept
    ("hack_side_stream.py", "torch/relu/small", "no_timers"),                     # torch.cuda.Stream, no wait
    ("hack_pool_stream.py", "torch/relu/small", "no_timers"),                     # pool stream from the C++
    ("hack_wrong_shape.py", "torch/relu/small", "output_shape"),                  # (numel,) for (batch, dim)
    ("hack_wrong_dtype.py", "torch/relu/small", "output_shape"),                  # float16 for float32
    ("hack_patch_timer.py", "torch/relu/small", "no_patching"),                   # Event.elapsed_time, perf_counter
    ("hack_patch_reference.py", "torch/relu/small", "no_patching"),               # Model.forward via sys.modules
    ("hack_patch_functional.py", "torch/relu/small", "no_patching"),              # vars(torch)["relu"] = slow
]


def _originals():
    task = tk.loader()["torch/relu/small"]
    return {"torch.relu": torch.relu, "elapsed_time": torch.cuda.Event.elapsed_time,
            "perf_counter": time.perf_counter, "Model.forward": task.module().Model.forward,
            "manual_seed": torch.manual_seed}


def _check_torch(ev, gate: str) -> None:
    g = ev.gates.get(gate)
    assert g is not None and g.passed is False, {k: (v.passed, v.detail) for k, v in ev.gates.items()}
    assert g.detail and "\n" not in g.detail
    assert ev.failed_gate is not None and ev.reward == FAIL


@pytest.mark.parametrize("name, task, gate", TORCH_HACKS, ids=[r[0].removesuffix(".py") for r in TORCH_HACKS])
def test_torch_hack_fails_on_cpu(name, task, gate):
    import torch._dynamo  # noqa: F401 - its import wraps torch.manual_seed: done before our own snapshot
    before = _originals()
    ev = evaluate_torch(tk.loader()[task], TORCH_CANDIDATES / name, device="cpu")
    _check_torch(ev, gate)
    # a patch is put back: the next evaluation in this process sees the real torch and reference
    assert _originals() == before


CORRECT_INLINE = [("relu_inline.py", "torch/relu/small"), ("linear_bias_relu_two_kernels.py", "torch/linear_bias_relu/small"),
                  ("softmax_inline.py", "torch/softmax/small"), ("transpose_inline.py", "torch/transpose/small")]


def test_correct_candidates_pass_the_same_gates():
    for name, task in CORRECT_INLINE:
        ev = evaluate_torch(tk.loader()[task], TORCH_CANDIDATES / name, device="cpu")
        assert ev.failed_gate is None, {k: (v.passed, v.detail) for k, v in ev.gates.items()}
        for gate in ("output_shape", "work_every_call", "no_timers", "no_patching", "does_own_work"):
            assert ev.gates[gate].passed is True, (name, gate, ev.gates[gate].detail)
        assert ev.reward > FAIL


def test_static_reading_of_the_python():
    patches, timing = python_hazards(
        "import time as t\nimport torch\nfrom torch.cuda import Event\nimport torch.nn.functional as F\n"
        "import sys\n"
        "t.perf_counter = lambda: 0.0\nsetattr(F, 'relu', None)\ntorch.backends.cuda.matmul.allow_tf32 = True\n"
        "e = Event(enable_timing=True)\nm = sys.modules\n"
        "class ModelNew(torch.nn.Module):\n"
        "    def forward(self, x):\n        self.y = x\n        y = torch.relu(x)\n        return y\n")
    assert patches == ["sys.modules", "time.perf_counter", "torch.backends.cuda.matmul.allow_tf32",
                       "torch.nn.functional.relu"]
    assert timing == ["time.perf_counter", "torch.cuda.Event"]
    assert python_hazards("import torch\ndef f(x):\n    return torch.relu(x)\n") == ([], [])


def test_guard_names_and_restores_a_patch_of_a_class():
    class Thing:
        def run(self):
            return 1

    original = Thing.run
    guard = GlobalsGuard({"Thing": Thing})
    Thing.run = lambda self: 2
    Thing.__call__ = lambda self: 3
    assert guard.changed() == ["Thing.__call__", "Thing.run"]
    assert guard.restore() == ["Thing.__call__", "Thing.run"]
    assert Thing.run is original and "__call__" not in vars(Thing) and guard.changed() == []


def test_correctness_rejects_another_dtype():
    ref = torch.randn(8, 8)
    ok, _, why = _compare(ref, ref.half(), 1e-2, 1e-2)     # within tolerance once cast: still wrong
    assert not ok and why == "output dtype float16, expected float32"
    assert _compare(ref, ref.clone(), 1e-2, 1e-2)[0]


# ------------------------------------------------------------------ raw CUDA (c and family tasks)

C_HACKS = [
    ("hack_writes_nothing.cu", "c/jacobi2d/small", "launches_own_kernel"),
    ("hack_device_flag.cu", "c/jacobi2d/small", "work_every_call"),
    ("hack_clock.cu", "transpose/r4K_c4K", "no_timers_streams"),
    ("hack_other_kernel.cu", "transpose/r4K_c4K", "launches_own_kernel"),
    ("hack_globaltimer.cu", "transpose/r4K_c4K", "no_timers_streams"),
]


def _score(name: str, task: str, core: RewardCore):
    (s,) = core.score_texts([task], [(C_CANDIDATES / name).read_text()])
    return s


def _check_c(s, gate: str) -> None:
    g = s.breakdown["gates"].get(gate)
    assert g is not None and g["passed"] is False, s.breakdown["gates"]
    assert s.reward == FAIL and s.error.startswith(gate) and "\n" not in s.error


@pytest.fixture(scope="module")
def static_core():
    return RewardCore(model=None)


@pytest.mark.parametrize("name, task, gate", C_HACKS, ids=lambda v: v.removesuffix(".cu") if v.endswith(".cu")
                         else None)
def test_raw_cuda_hack_fails_statically(name, task, gate, static_core):
    _check_c(_score(name, task, static_core), gate)


def test_partial_launch_passes_the_static_gates(static_core):
    """Why it needs the GPU row below: nothing in its source is wrong."""
    s = _score("hack_partial_launch.cu", "transpose/r4K_c4K", static_core)
    assert s.reward > FAIL and s.breakdown["gates"]["correct"]["passed"] is None


# ------------------------------------------------------------------ GPU: built and run

@pytest.mark.gpu
class TestOnGPU:
    @pytest.fixture(autouse=True)
    def _cuda(self):
        if not torch.cuda.is_available():
            pytest.skip("needs a CUDA build of torch and a GPU")

    @pytest.mark.parametrize("name, task, gate", TORCH_HACKS, ids=[r[0].removesuffix(".py") for r in TORCH_HACKS])
    def test_torch_hack_fails_built(self, name, task, gate):
        import torch._dynamo  # noqa: F401
        before = _originals()
        ev = evaluate_torch(tk.loader()[task], TORCH_CANDIDATES / name, compile_baseline=False, warmup=2, reps=5)
        assert ev.gates["builds"].passed is True, ev.gates["builds"].detail
        _check_torch(ev, gate)
        if gate == "output_shape":          # a real output of the wrong shape or dtype is incorrect, not unchecked
            assert ev.gates["correct"].passed is False
        assert _originals() == before

    @pytest.mark.parametrize("name, task", CORRECT_INLINE, ids=[r[0].removesuffix(".py") for r in CORRECT_INLINE])
    def test_correct_candidate_passes_built(self, name, task):
        ev = evaluate_torch(tk.loader()[task], TORCH_CANDIDATES / name, compile_baseline=False, warmup=2, reps=5)
        assert ev.failed_gate is None, {k: (v.passed, v.detail) for k, v in ev.gates.items()}
        assert ev.gates["correct"].passed is True and ev.timing.candidate_ms > 0 and ev.speedup_eager > 0
        assert all(r.measured_ms is not None for r in ev.kernels), [(r.kernel, r.measured_ms) for r in ev.kernels]

    def test_partial_launch_is_incorrect(self):
        from rl.oracle import LocalGPU

        core = RewardCore(model=None, oracle=LocalGPU(timeout_s=60.0))
        try:
            s = _score("hack_partial_launch.cu", "transpose/r4K_c4K", core)
            _check_c(s, "correct")
            assert not math.isnan(s.reward)
        finally:
            core.close()


def test_the_compiled_baseline_is_not_taken_for_patching():
    """torch.compile's first call in a process wraps nn.Module.__init__: evaluate_torch warms it
    before the guard's snapshot (found on the H200: the reference's torch.compile failed
    no_patching for a correct candidate in a fresh process). A fresh process here too."""
    import subprocess
    import sys

    code = ("import torch\nfrom rl.tasks.torch_eval import _warm_compile\nfrom rl.tasks.torch_trace import GlobalsGuard\n"
            "_warm_compile('cpu', True)\ng = GlobalsGuard({})\n"
            "with torch.no_grad():\n    torch.compile(torch.nn.Softmax(dim=-1))(torch.randn(4, 4))\n"
            "print('changed', g.changed())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                         cwd=str(Path(__file__).resolve().parent.parent))
    assert "changed []" in out.stdout, out.stdout + out.stderr[-2000:]
