"""torch tasks: problem files (KernelBench layout), import, and candidate evaluation.

Everything but the GPU class runs on a CPU: problem files run on the CPU (smallest size) and
on the meta device (every size, shapes only); candidates are traced with a stand-in for
load_inline. The GPU tests build the example candidates and check, time and profile them.
"""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from rl.tasks import torch_kind as tk  # noqa: E402
from rl.tasks.torch_eval import cmd_evaluate_torch, evaluate_torch, library_calls, timer_calls  # noqa: E402
from rl.tasks.torch_static import CudaUnit, TensorInfo, bind_call  # noqa: E402
from rewardmodel.reward import RewardConfig  # noqa: E402

FAIL = RewardConfig().fail_reward

CANDIDATES = tk.SUITE_DIR / "candidates"


def _write(directory: Path, name: str, text: str) -> Path:
    p = directory / name
    p.write_text(textwrap.dedent(text).lstrip())
    return p


KB_FILE = """
import torch
import torch.nn as nn

N = 64

class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x * self.scale

def get_inputs():
    return [torch.randn(N, N)]

def get_init_inputs():
    return [2.0]
"""


# ------------------------------------------------------------------ the suite

def test_suite_has_30_problems_each_with_sizes():
    tasks = tk.suite_tasks()
    files = {t.name for t in tasks.values()}
    assert len(files) >= 30
    for name in files:
        sizes = [t.size for t in tasks.values() if t.name == name]
        assert len(sizes) >= 2, name
    for tid, t in tasks.items():
        assert tid == f"torch/{t.name}/{t.size}" and t.kind == "torch"
        assert t.description and not t.description.startswith(t.name), f"{tid}: no docstring description"
        assert (t.atol, t.rtol) == (1e-2, 1e-2)
        if t.baseline is None:          # no raw-kernel port for this problem (or this size)
            assert t.candidates == ()
        else:
            assert t.baseline.baseline and t.candidates[0] is t.baseline and t.meta["port"]


@pytest.mark.parametrize("path", sorted(tk.SUITE_DIR.glob("*.py")), ids=lambda p: p.stem)
def test_suite_file_runs(path):
    """Every size builds and runs on the meta device; the smallest one for real on the CPU,
    deterministically per seed and differently across seeds."""
    tasks = tk.check_file(path)
    small = tasks[0]
    model = small.reference_model("cpu")
    with torch.no_grad():
        a = model(*small.make_inputs(0))
        b = model(*small.make_inputs(0))
        c = model(*small.make_inputs(1))
    assert torch.equal(a, b)
    assert not torch.equal(a, c)
    assert torch.isfinite(a.float()).all()


def test_sizes_override_the_module_constants():
    small, large = tk.loader()["torch/relu/small"], tk.loader()["torch/relu/large"]
    assert small.make_inputs(0, "meta")[0].shape == (1024, 1024)
    assert large.make_inputs(0, "meta")[0].shape == (16384, 16384)
    ln = tk.loader()["torch/layernorm/medium"]
    assert ln.reference_model("meta").norm.weight.shape == (2048,)     # init inputs read the size too


def test_same_seed_same_parameters():
    t = tk.loader()["torch/linear_bias_relu/small"]
    a, b = t.reference_model(), t.reference_model()
    assert torch.equal(a.linear.weight, b.linear.weight)


def test_prompt_shows_the_reference():
    t = tk.loader()["torch/softmax/small"]
    text = t.prompt()
    assert "ModelNew" in text and "torch.softmax" in text and "ROWS=1024" in text


# ------------------------------------------------------------------ problem files: layout and errors

def test_plain_kernelbench_file_is_one_default_task(tmp_path):
    p = _write(tmp_path, "scale_2x.py", KB_FILE)
    (task,) = tk.check_file(p)
    assert task.id == "torch/scale_2x/default" and task.constants == {}
    x = task.make_inputs(3)[0]
    assert torch.equal(task.reference_model()(x), 2.0 * x)


@pytest.mark.parametrize("text, expect", [
    ("import torch\ndef get_inputs(): return []\ndef get_init_inputs(): return []\n", "does not define Model"),
    ("def broken(:\n", ":1: Python does not parse"),
    ("import nonexistent_module_xyz\n", "running the file failed: ModuleNotFoundError"),
    (KB_FILE + "\nSIZES = {'big': {'M': 3}}\n", "SIZES['big'] sets M, which the file does not define"),
    (KB_FILE + "\nSIZES = [1, 2]\n", "SIZES must be a non-empty dict"),
    (KB_FILE + "\nSIZES = {'a b': {'N': 3}}\n", "is not a plain name"),
    (KB_FILE.replace("return x * self.scale", "return x @ torch.ones(3, 3)"), "forward failed"),
    (KB_FILE.replace("return x * self.scale", "pass"), "forward returns None"),
])
def test_bad_problem_file_is_one_line_naming_it(tmp_path, text, expect):
    p = tmp_path / "bad.py"
    p.write_text(text)
    with pytest.raises(tk.TaskFileError) as info:
        tk.check_file(p)
    msg = str(info.value)
    assert msg.startswith(str(p)) and expect in msg and "\n" not in msg


def test_unknown_size(tmp_path):
    p = _write(tmp_path, "k.py", KB_FILE)
    with pytest.raises(tk.TaskFileError, match="no size 'huge'"):
        tk.load_problem(p, "huge")


def test_import_keeps_good_files_and_reports_bad_ones(tmp_path, monkeypatch, capsys):
    src, dest = tmp_path / "src", tmp_path / "dest"
    src.mkdir()
    _write(src, "1_scale.py", KB_FILE)
    _write(src, "2_sized.py", KB_FILE + "\nSIZES = {'s': {'N': 8}, 'l': {'N': 512}}\n")
    _write(src, "3_broken.py", "import torch\n")
    _write(src, "relu.py", KB_FILE)                  # collides with the suite's relu
    report = tk.import_torch_tasks(src, dest)
    assert sorted(report.imported) == ["torch/1_scale/default", "torch/2_sized/l", "torch/2_sized/s"]
    assert sorted(p.name for p in dest.iterdir()) == ["1_scale.py", "2_sized.py"]
    assert len(report.errors) == 2
    assert any("3_broken.py" in e and "does not define Model, get_inputs, get_init_inputs" in e for e in report.errors)
    assert any("relu.py" in e and "taken by the built-in suite" in e for e in report.errors)

    monkeypatch.setenv("CUDAPERF_TASKS", str(dest))
    tasks = tk.loader()
    assert tasks["torch/2_sized/l"].imported and tasks["torch/2_sized/l"].make_inputs(0, "meta")[0].shape == (512, 512)
    assert not tasks["torch/relu/small"].imported

    rc = tk.cmd_import_torch(str(src), str(tmp_path / "dest2"))
    out, err = capsys.readouterr()
    assert rc == 1 and "imported torch/1_scale/default" in out and err.count("error:") == 2


def test_import_of_nothing_useful(tmp_path):
    assert tk.cmd_import_torch(str(tmp_path / "missing"), str(tmp_path / "d")) == 2
    assert "not a directory" in tk.import_torch_tasks(tmp_path / "missing").errors[0]


def test_a_bad_imported_file_is_skipped_with_a_warning(tmp_path, capsys):
    _write(tmp_path, "good.py", KB_FILE)
    _write(tmp_path, "bad.py", "x = 1\n")
    tasks = tk.imported_tasks(tmp_path)
    assert list(tasks) == ["torch/good/default"]
    assert "bad.py" in capsys.readouterr().err


# ------------------------------------------------------------------ C++ wrapper binding

WRAPPER = r"""
#include <torch/extension.h>
#define TILE 16
__global__ void k2d(const float* x, float* y, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) y[r * cols + c] = x[r * cols + c];
}
template <typename T>
__global__ void k1d(const T* x, T* y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
void launch2d(torch::Tensor x, torch::Tensor y) {
    dim3 block(TILE, TILE);
    dim3 grid((x.size(1) + TILE - 1) / TILE, (x.size(0) + TILE - 1) / TILE);
    k2d<<<grid, block>>>(x.data_ptr<float>(), y.data_ptr<float>(), x.size(0), x.size(1));
}
torch::Tensor wrap(torch::Tensor x, int64_t unused) {
    auto y = torch::empty({x.size(0), x.size(-1)}, x.options());
    launch2d(x, y);
    const int64_t n = x.numel();
    int threads = std::min<int>(1024, n > 100000 ? 512 : 128);
    int blocks = (int)((n + threads - 1) / threads);
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "k1d", ([&] {
        k1d<scalar_t><<<blocks, threads, threads * sizeof(float)>>>(x.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), n);
    }));
    auto idx = torch::empty({x.size(0)}, x.options().dtype(torch::kLong));
    return idx;
}
void by_pointer(torch::Tensor x, int* p) {
    k2d<<<p[0], 256>>>(x.data_ptr<float>(), x.data_ptr<float>(), 1, 1);
}
"""


def test_bind_call_computes_launches_and_result():
    unit = CudaUnit.of(0, WRAPPER)
    b = bind_call([unit], "wrap", [TensorInfo((100, 300)), 1])
    assert b.found and b.result == TensorInfo((100,), "int64")
    first, second = b.launches
    assert (first.kernel, first.host, first.grid, first.block) == ("k2d", "launch2d", (19, 7, 1), (16, 16, 1))
    assert first.args == {"rows": 100, "cols": 300}
    assert second.kernel == "k1d<float>" and second.grid == (235, 1, 1) and second.block == (128, 1, 1)
    assert second.smem == 512 and second.args == {"n": 30000}
    big = bind_call([unit], "wrap", [TensorInfo((1000, 1000)), 1]).launches[1]
    assert big.block == (512, 1, 1) and big.grid == (1954, 1, 1)


def test_bind_call_says_what_it_cannot_compute():
    unit = CudaUnit.of(0, WRAPPER)
    b = bind_call([unit], "by_pointer", [TensorInfo((4,)), None])
    (l,) = b.launches
    assert l.grid is None and l.block == (256, 1, 1) and not l.resolved
    assert any("grid `p[0]`" in u for u in l.unresolved)
    assert b.void
    missing = bind_call([unit], "nope", [])
    assert not missing.found and "not defined" in missing.notes[0]


def test_library_and_timer_scans():
    ok = "torch::Tensor f(torch::Tensor x) { auto y = torch::empty_like(x, x.options().dtype(torch::kFloat)); " \
         "cudaStream_t s = at::cuda::getCurrentCUDAStream(); return y; } // torch::matmul in a comment"
    assert library_calls([ok]) == [] and timer_calls([ok]) == []
    bad = "auto y = torch::matmul(a, b); at::relu(y); cublasSgemm(h); cudaEventRecord(e); long t = clock64();"
    assert library_calls([bad]) == ["at::relu", "cublasSgemm", "torch::matmul"]
    assert timer_calls([bad]) == ["clock64", "cudaEventRecord"]


# ------------------------------------------------------------------ candidates (CPU: static half)

def _relu_with(tmp_path, old: str, new: str):
    """relu_inline.py with `old` replaced by `new`, written to tmp_path and evaluated on the CPU:
    (its text, the evaluation)."""
    src = (CANDIDATES / "relu_inline.py").read_text()
    changed = src.replace(old, new)
    assert changed != src
    p = tmp_path / "candidate.py"
    p.write_text(changed)
    return changed, evaluate_torch(tk.loader()["torch/relu/small"], p, device="cpu")


def test_a_candidate_known_not_to_build_or_launch_fails_a_gate_on_a_cpu(tmp_path):
    """Not built (no CUDA device), a CUDA string the build is known to refuse (a warp intrinsic
    without a lane mask) fails `builds`, and a launch known to fail (over the kernel's
    __launch_bounds__) fails `launch`: no optimistic static reward for code that cannot run."""
    _, ev = _relu_with(tmp_path, "y[i] = fmaxf(x[i], 0.0f);", "y[i] = fmaxf(x[i], 0.0f) + 0.0f * __shfl_down(x[i], 1);")
    assert ev.failed_gate == "builds" and ev.gates["builds"].detail.startswith("calls __shfl_down"), ev.gates
    assert ev.reward == RewardConfig().fail_reward
    # its launch takes 256 threads a block
    _, ev = _relu_with(tmp_path, "__global__ void relu_kernel", "__global__ void __launch_bounds__(128) relu_kernel")
    assert ev.failed_gate == "launch" and "relu_kernel's __launch_bounds__(128)" in ev.gates["launch"].detail, ev.gates
    assert ev.reward == RewardConfig().fail_reward


def _half_relu(undefine: bool) -> str:
    """relu_inline.py computing through a `__half` comparison (an operator PyTorch's build flags take
    away); `undefine`: its load_inline's extra_cuda_cflags take the flags back."""
    src = (CANDIDATES / "relu_inline.py").read_text()
    half = src.replace("y[i] = fmaxf(x[i], 0.0f);", "__half h = __float2half(x[i]);\n"
                       "        y[i] = h > __float2half(0.0f) ? x[i] : 0.0f;")
    half = half.replace("#include <torch/extension.h>", "#include <torch/extension.h>\n#include <cuda_fp16.h>")
    if undefine:
        half = half.replace('functions=["relu_cuda"],', 'functions=["relu_cuda"], extra_cuda_cflags=['
                            '"-U__CUDA_NO_HALF_OPERATORS__", "-U__CUDA_NO_HALF_CONVERSIONS__"],')
    assert half != src and undefine == ("extra_cuda_cflags" in half)
    return half


def test_half_operators_fail_builds_unless_the_candidate_undefines_pytorchs_flags(tmp_path):
    """load_inline builds with -D__CUDA_NO_HALF_OPERATORS__ (and siblings): a `__half` comparison in
    the candidate's CUDA fails `builds` on a CPU, at its line in the .py file; with
    extra_cuda_cflags that undefine the flags the build is not known to fail (TestOnGPU builds both)."""
    t = tk.loader()["torch/relu/small"]
    half = _half_relu(False)
    p = tmp_path / "half.py"
    p.write_text(half)
    ev = evaluate_torch(t, p, device="cpu")
    line = next(n for n, text in enumerate(half.splitlines(), 1) if "h > __float2half" in text)
    assert ev.failed_gate == "builds", ev.gates
    assert ev.gates["builds"].detail.startswith(f"line {line}: `h > __float2half(0.0f)` uses `__half`'s operator >")
    assert ev.reward == RewardConfig().fail_reward
    p.write_text(_half_relu(True))
    ev = evaluate_torch(t, p, device="cpu")
    assert ev.failed_gate is None and ev.gates["builds"].passed is None, ev.gates


def test_a_syntax_error_in_the_cuda_string_fails_builds_on_a_cpu(tmp_path):
    """A missing `;` in the kernel: the analysis reads past it (tree-sitter assumes the token), so
    nothing else would fail the static gates; NVRTC's build of the device code says where it breaks,
    at the .py file's line (or, with no NVRTC here, that the code cannot be read)."""
    broken, ev = _relu_with(tmp_path, "y[i] = fmaxf(x[i], 0.0f);", "y[i] = fmaxf(x[i], 0.0f)")
    assert ev.failed_gate == "builds" and ev.reward == FAIL, ev.gates
    detail = ev.gates["builds"].detail
    if "no compiler here" not in detail:
        line = next(n for n, text in enumerate(broken.splitlines(), 1) if "fmaxf(x[i], 0.0f)" in text)
        assert detail.startswith((f"line {line}: expected a \";\"", f"line {line + 1}: expected a \";\"")), detail


def test_correct_candidate_static_half():
    t = tk.loader()["torch/relu/small"]
    ev = evaluate_torch(t, CANDIDATES / "relu_inline.py", device="cpu")
    g = {k: v.passed for k, v in ev.gates.items()}
    assert g == {"loads": True, "builds": None, "launches_own_kernel": True, "does_own_work": True,
                 "output_shape": True, "work_every_call": True, "no_library_call": True, "no_timers": True,
                 "no_patching": True, "correct": None}
    assert ev.failed_gate is None and ev.device == "meta"
    (row,) = ev.kernels
    assert row.kernel == "relu_kernel" and row.function == "relu_cuda"
    assert row.grid == (4096, 1, 1) and row.block == (256, 1, 1) and row.args == {"n": 1024 * 1024}
    assert row.call_bytes == 2 * 4 * 1024 * 1024
    assert row.terms["coalescing"].value == pytest.approx(1.0)
    assert ev.reference_ops == ["aten.relu"] and ev.torch_ops == []
    # the launch site, at its line in the .py file
    lines = (CANDIDATES / "relu_inline.py").read_text().splitlines()
    path, line, col = row.where.rsplit(":", 2)
    assert lines[int(line) - 1][int(col) - 1:].startswith("relu_kernel<<<")
    # findings at Python positions too
    assert ev.findings
    for f in ev.findings:
        loc = f.split(": ")[0]
        _, fl, fc = loc.rsplit(":", 2)
        assert "float" in lines[int(fl) - 1] or "x[i]" in lines[int(fl) - 1] or "y[i]" in lines[int(fl) - 1]
    # grid follows the task's size
    large = evaluate_torch(tk.loader()["torch/relu/large"], CANDIDATES / "relu_inline.py", device="cpu")
    assert large.kernels[0].grid == (16384 * 16384 // 256, 1, 1)


def test_candidate_calling_torch_fails_the_anti_hacking_gates():
    t = tk.loader()["torch/relu/small"]
    ev = evaluate_torch(t, CANDIDATES / "relu_calls_torch.py", device="cpu")
    assert ev.gates["launches_own_kernel"].passed is False
    assert "never calls its extension" in ev.gates["launches_own_kernel"].detail
    assert ev.gates["does_own_work"].passed is False and "aten.relu" in ev.gates["does_own_work"].detail
    assert ev.failed_gate == "launches_own_kernel" and ev.reward == FAIL
    assert ev.kernels == []


def test_two_kernel_candidate_breakdown():
    t = tk.loader()["torch/linear_bias_relu/small"]
    ev = evaluate_torch(t, CANDIDATES / "linear_bias_relu_two_kernels.py", device="cpu")
    assert ev.failed_gate is None
    mm, br = ev.kernels
    assert (mm.kernel, mm.grid, mm.block) == ("matmul_wt_kernel", (64, 64, 1), (16, 16, 1))
    assert mm.args == {"M": 1024, "N": 1024, "K": 1024}
    assert (br.kernel, br.grid, br.block) == ("bias_relu_kernel", (4096, 1, 1), (256, 1, 1))
    assert mm.call == br.call == 1
    assert 0 < mm.terms["bank_conflicts"].value < 1          # the padded tile still has a 2-way write
    assert any("SM201" in f for f in ev.findings)
    # without a surrogate, each term is the plain mean over the launches
    banks = (mm.terms["bank_conflicts"].value + br.terms["bank_conflicts"].value) / 2
    assert ev.terms["bank_conflicts"].value == pytest.approx(banks)
    assert ev.gates["does_own_work"].detail == "replaces aten.addmm, aten.relu"
    assert ev.notes and any("2 of 2" in n for n in ev.notes)


def test_predicted_time_is_the_sum_over_launches():
    pytest.importorskip("xgboost")
    t = tk.loader()["torch/linear_bias_relu/small"]
    ev = evaluate_torch(t, CANDIDATES / "linear_bias_relu_two_kernels.py", device="cpu", model="default")
    preds = [r.predicted_ms for r in ev.kernels]
    assert all(p is not None and p > 0 for p in preds)
    assert ev.predicted_ms == pytest.approx(sum(preds))
    assert "predicted time" in ev.terms["coalescing"].why


@pytest.mark.parametrize("text, gate, expect", [
    ("def broken(:\n", "loads", ":1: Python does not parse"),
    ("import torch\nclass Model(torch.nn.Module):\n    pass\n", "loads", "defines no class ModelNew"),
    ("raise RuntimeError('boom')\n", "loads", "running the module failed: RuntimeError: boom"),
])
def test_bad_candidates_fail_one_line(tmp_path, text, gate, expect):
    p = tmp_path / "cand.py"
    p.write_text(text)
    ev = evaluate_torch(tk.loader()["torch/relu/small"], p, device="cpu")
    assert ev.gates[gate].passed is False and expect in ev.gates[gate].detail
    assert "\n" not in ev.gates[gate].detail and ev.reward == FAIL


LIB_CANDIDATE = '''
import torch
from torch.utils.cpp_extension import load_inline

SRC = r"""
#include <torch/extension.h>
__global__ void noop(float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 0.f; }
torch::Tensor mm(torch::Tensor a, torch::Tensor b) {
    auto y = torch::matmul(a, b);
    cudaEvent_t e; cudaEventCreate(&e);
    noop<<<1, 32>>>(y.data_ptr<float>(), 0);
    return y;
}
"""
ext = load_inline(name="mm_lib", cpp_sources="torch::Tensor mm(torch::Tensor a, torch::Tensor b);",
                  cuda_sources=SRC, functions=["mm"])

class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        return ext.mm(a, b)
'''


def test_library_and_timer_gates(tmp_path):
    p = tmp_path / "lib.py"
    p.write_text(LIB_CANDIDATE)
    ev = evaluate_torch(tk.loader()["torch/matmul_square/small"], p, device="cpu")
    assert ev.gates["launches_own_kernel"].passed is True
    assert ev.gates["no_library_call"].passed is False and "torch::matmul" in ev.gates["no_library_call"].detail
    assert ev.gates["no_timers"].passed is False and "cudaEventCreate" in ev.gates["no_timers"].detail
    (row,) = ev.kernels
    assert row.grid == (1, 1, 1) and row.block == (32, 1, 1)
    # the C++ result shape is unknown (torch::matmul): said so, and the trace went on
    assert any("not computable" in n for n in ev.notes)


def test_forward_that_breaks_on_meta_is_unchecked_not_failed(tmp_path):
    p = tmp_path / "c.py"
    p.write_text(LIB_CANDIDATE.replace("return ext.mm(a, b)", "return ext.mm(a.cuda(), b)"))
    ev = evaluate_torch(tk.loader()["torch/matmul_square/small"], p, device="cpu")
    assert ev.gates["launches_own_kernel"].passed is None
    assert "forward failed" in ev.gates["launches_own_kernel"].detail


def test_constructor_that_fails_still_gets_findings(tmp_path, monkeypatch):
    text = (CANDIDATES / "relu_inline.py").read_text().replace("def __init__(self):", "def __init__(self, width):")
    p = tmp_path / "ctor.py"
    p.write_text(text)
    ev = evaluate_torch(tk.loader()["torch/relu/small"], p, device="cpu")
    g = ev.gates["launches_own_kernel"]
    assert g.passed is None and "building ModelNew failed: TypeError" in g.detail   # unchecked on meta
    assert ev.findings and ev.kernels == [] and ev.failed_gate is None
    _fake_build(monkeypatch, tmp_path, {"relu_cuda": lambda x: x.clamp(min=0)})
    ev = _run(p)                                                                     # built: a failure
    assert ev.gates["launches_own_kernel"].passed is False and ev.gates["correct"].passed is False
    assert ev.reward == FAIL


def test_cmd_evaluate_torch(capsys):
    rc = cmd_evaluate_torch("torch/relu/small", str(CANDIDATES / "relu_inline.py"), "json", oracle="none",
                            model=None)
    d = json.loads(capsys.readouterr().out)
    assert rc == 0 and d["failed_gate"] is None and d["kernels"][0]["grid"] == [4096, 1, 1]
    rc = cmd_evaluate_torch("torch/relu/small", str(CANDIDATES / "relu_calls_torch.py"), "text", oracle="none",
                            model=None)
    out = capsys.readouterr().out
    assert rc == 1 and "gate launches_own_kernel" in out and "FAIL" in out and out.strip().endswith(
        "(gate launches_own_kernel failed)")
    assert cmd_evaluate_torch("torch/relu/tiny", "x.py", oracle="none", model=None) == 2
    assert "sizes: torch/relu/large" in capsys.readouterr().err
    assert cmd_evaluate_torch("torch/relu/small", "missing.py", oracle="none", model=None) == 2


# ------------------------------------------------------------------ the dynamic half, on the CPU

def _fake_build(monkeypatch, tmp_path, impls, hide=True):
    """Stand in for the real load_inline (same signature): the extension's functions run the given
    Python, hidden from the dispatch trace as a CUDA kernel would be (hide=False: seen, as ATen
    calls from the C++ would be)."""
    import functools
    import types

    from torch.utils import cpp_extension
    from torch.utils._python_dispatch import _disable_current_modes

    from rl.tasks import torch_trace

    real = torch_trace._REAL_LOAD_INLINE or cpp_extension.load_inline
    built = []

    def hidden(fn):
        if not hide:
            return fn

        def run(*args):
            with _disable_current_modes():
                return fn(*args)
        return run

    @functools.wraps(real)
    def fake(**kw):
        built.append(kw)
        return types.SimpleNamespace(**{name: hidden(fn) for name, fn in impls.items()})

    monkeypatch.setattr(torch_trace, "_REAL_LOAD_INLINE", fake)
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path / "cache"))
    return built


def _run(path, task="torch/relu/small"):
    return evaluate_torch(tk.loader()[task], path, device="cpu", build=True, compile_baseline=False, warmup=1, reps=3)


def test_built_candidate_is_checked_and_timed(monkeypatch, tmp_path):
    built = _fake_build(monkeypatch, tmp_path, {"relu_cuda": lambda x: x.clamp(min=0)})
    ev = _run(CANDIDATES / "relu_inline.py")
    assert ev.failed_gate is None, ev.gates
    assert ev.gates["correct"].passed and ev.correctness.max_abs_diff == 0.0 and ev.correctness.seeds == (0, 1, 2)
    assert ev.gates["work_every_call"].passed and ev.gates["no_library_call"].passed
    assert ev.timing.eager_ms is not None and ev.timing.candidate_ms is not None and ev.speedup_eager is not None
    assert ev.terms["speed"].value is not None
    (kw,) = built
    assert kw["name"].startswith("cudaperf_ext_") and kw["build_directory"].startswith(str(tmp_path / "cache"))
    assert kw["functions"] == ["relu_cuda"] and "relu_kernel" in kw["cuda_sources"]
    # the same sources under another name= are the same build
    _run(CANDIDATES / "relu_calls_torch.py")
    assert built[1]["name"] == kw["name"]


def test_built_candidate_that_is_wrong(monkeypatch, tmp_path):
    _fake_build(monkeypatch, tmp_path, {"relu_cuda": lambda x: torch.where(x > 0, x, 0.1 * x)})
    ev = _run(CANDIDATES / "relu_wrong.py")
    assert ev.gates["correct"].passed is False and "seed 0" in ev.gates["correct"].detail
    assert "elements off" in ev.gates["correct"].detail and ev.timing.candidate_ms is None and ev.reward == FAIL


def test_built_candidate_with_the_wrong_shape(monkeypatch, tmp_path):
    _fake_build(monkeypatch, tmp_path, {"relu_cuda": lambda x: x.clamp(min=0)[:, :1]})
    ev = _run(CANDIDATES / "relu_inline.py")
    assert ev.gates["correct"].passed is False and "output shape (1024, 1)" in ev.gates["correct"].detail


def test_built_candidate_that_reuses_its_result(monkeypatch, tmp_path):
    _fake_build(monkeypatch, tmp_path, {"relu_cuda": lambda x: x.clamp(min=0)})
    text = (CANDIDATES / "relu_inline.py").read_text().replace(
        "        return self.relu.relu_cuda(x)",
        "        if getattr(self, 'seen', None) is x:\n            return self.out\n"
        "        self.seen, self.out = x, self.relu.relu_cuda(x)\n        return self.out")
    p = tmp_path / "cached.py"
    p.write_text(text)
    ev = _run(p)
    assert ev.gates["correct"].passed is True           # every seed is a new tensor: the cache misses
    assert ev.gates["work_every_call"].passed is False  # timing repeats one input: it hits
    assert "results reused" in ev.gates["work_every_call"].detail and ev.reward == FAIL


def test_extension_that_calls_aten_inside(monkeypatch, tmp_path):
    """A build whose C++ dispatches ATen compute (torch::relu) shows it in the trace."""
    _fake_build(monkeypatch, tmp_path, {"relu_cuda": torch.relu}, hide=False)
    ev = _run(CANDIDATES / "relu_inline.py")
    assert ev.gates["no_library_call"].passed is False and "aten.relu" in ev.gates["no_library_call"].detail
    assert ev.gates["does_own_work"].passed is False


# ------------------------------------------------------------------ GPU: build, check, time

@pytest.mark.gpu
class TestOnGPU:
    @pytest.fixture(autouse=True)
    def _cuda(self):
        if not torch.cuda.is_available():
            pytest.skip("needs a CUDA build of torch and a GPU")

    def test_correct_candidate(self):
        ev = evaluate_torch(tk.loader()["torch/relu/small"], CANDIDATES / "relu_inline.py", reps=10)
        assert ev.failed_gate is None, ev.gates
        assert ev.gates["builds"].passed and ev.gates["correct"].passed and ev.gates["work_every_call"].passed
        assert ev.correctness.max_abs_diff == 0.0
        t = ev.timing
        assert t.eager_ms > 0 and t.candidate_ms > 0 and ev.speedup_eager > 0
        assert t.compile_ms is None or ev.speedup_compile > 0
        assert ev.kernels[0].measured_ms is not None

    def test_wrong_candidate(self):
        ev = evaluate_torch(tk.loader()["torch/relu/small"], CANDIDATES / "relu_wrong.py", compile_baseline=False)
        assert ev.gates["correct"].passed is False and "elements off" in ev.gates["correct"].detail
        assert ev.timing.candidate_ms is None and ev.reward == FAIL

    def test_gaming_candidate(self):
        ev = evaluate_torch(tk.loader()["torch/relu/small"], CANDIDATES / "relu_calls_torch.py",
                            compile_baseline=False)
        assert ev.gates["launches_own_kernel"].passed is False and ev.reward == FAIL

    def test_two_kernels(self):
        ev = evaluate_torch(tk.loader()["torch/linear_bias_relu/small"],
                            CANDIDATES / "linear_bias_relu_two_kernels.py", compile_baseline=False, reps=5)
        assert ev.failed_gate is None, ev.gates
        assert [r.kernel for r in ev.kernels] == ["matmul_wt_kernel", "bias_relu_kernel"]
        assert all(r.measured_ms is not None for r in ev.kernels)

    def test_pytorchs_build_refuses_half_operators_as_the_static_gate_says(self, tmp_path):
        """The real load_inline build fails where CP707 says (a `__half` operator under PyTorch's
        flags), and builds and is correct once extra_cuda_cflags undefine them."""
        t = tk.loader()["torch/relu/small"]
        p = tmp_path / "half.py"
        p.write_text(_half_relu(False))
        ev = evaluate_torch(t, p, compile_baseline=False, reps=3)
        assert ev.gates["builds"].passed is False and 'no operator ">"' in ev.gates["builds"].detail, ev.gates
        p.write_text(_half_relu(True))
        ev = evaluate_torch(t, p, compile_baseline=False, reps=3)
        assert ev.failed_gate is None and ev.gates["builds"].passed and ev.gates["correct"].passed, ev.gates

    def test_build_error_is_a_gate(self, tmp_path):
        p = tmp_path / "bad_build.py"
        p.write_text(LIB_CANDIDATE.replace("return y;\n}", "return y\n}"))
        ev = evaluate_torch(tk.loader()["torch/matmul_square/small"], p, compile_baseline=False)
        assert ev.gates["builds"].passed is False and "\n" not in ev.gates["builds"].detail


def test_prebuild_reports_each_candidate_in_parallel(tmp_path, capsys):
    """Builds run in processes of their own; a broken file is one FAILED line, the rest go on."""
    from rl.tasks.torch_prebuild import main

    bad = tmp_path / "bad.py"
    bad.write_text("import torch\nclass ModelNew(torch.nn.Module:\n    pass\n")
    assert main(["-j", "2", str(CANDIDATES / "hack_no_kernel.py"), str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert any(l.startswith("built ") and "hack_no_kernel.py" in l and "nothing to build" in l for l in out)
    assert any(l.startswith("FAILED") and "bad.py:2: Python does not parse" in l for l in out)
    assert main([str(tmp_path / "missing.py")]) == 2


def test_findings_of_a_kernel_passed_through_a_wrapper_get_python_lines(tmp_path):
    """A solution that hands its CUDA to load_inline through a helper function (`build(src)`): its
    units still map to the .py file's lines, as `lint solution.py` reads them (before, only strings
    given to load_inline directly did, and findings read `<cuda_sources 0>`)."""
    from rl.tasks.torch_eval import _positions, _where

    kernel = "__global__ void k(float* y) { y[threadIdx.x * 32] = 0.f; }\n"
    path = tmp_path / "solution.py"
    path.write_text('from torch.utils.cpp_extension import load_inline\n\n'
                    'def build(src):\n    return load_inline(name="k", cpp_sources="", cuda_sources=[src])\n\n'
                    f'KERNEL = """\n{kernel}"""\nmod = build(KERNEL)\n')
    pos = _positions(path, [CudaUnit.of(0, "\n" + kernel)])
    assert _where(path, pos, 0, 2, 31) == f"{path}:7:31"


def test_a_candidates_suppression_comments_hide_no_finding_from_its_evaluation(tmp_path):
    """The findings an evaluation reports (the policy's feedback) are the kernel's, whatever its
    comments ask `lint` to hide."""
    from rl.tasks.torch_eval import _lint

    kernel = "__global__ void k(float* y) { y[threadIdx.x * 32] = 0.f; }\n"
    path = tmp_path / "solution.py"
    for text in (kernel, "// cudaperf: ignore-file\n" + kernel, kernel.replace("}\n", "}  // NOLINT\n")):
        findings, _, _ = _lint(path, [CudaUnit.of(0, text)], [], {})
        assert [f.split(": ")[1].split()[0] for f in findings] == ["GM102"], text
