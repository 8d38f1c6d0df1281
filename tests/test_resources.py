"""Registers and spills from ptxas (nvcc and NVRTC, no GPU needed) and the static fallback."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from analyzer import resources
from analyzer.parse import parse
from analyzer.resources import Resources, demangle_name, device_code, estimate_registers, parse_ptxas_log

SRC = open(__file__.replace("tests/test_resources.py", "analyzer/examples/reduction.cu")).read()
KERNELS = {"reduce_interleaved", "reduce_strided_index", "reduce_shuffle", "reduce_atomic"}


def test_demangle():
    assert demangle_name("_Z6kernelPfi") == "kernel"
    assert demangle_name("_Z13reduce_atomicPKfPfi") == "reduce_atomic"
    assert demangle_name("_Z6reduceILi256EEvPKfPfi") == "reduce"
    assert demangle_name("_ZN2ns6kernelEPf") == "kernel"
    assert demangle_name("plain_c_name") == "plain_c_name"


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_nvcc_backend_reads_every_kernel(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path))
    table = resources.ptxas_resources(parse(SRC), "sm_90", backend="nvcc")
    assert set(table) == KERNELS
    for r in table.values():
        assert r.source == "ptxas (nvcc)" and 0 < r.registers <= 255
    assert table["reduce_shuffle"].shared_static == 256 * 4


def test_nvrtc_backend_without_a_gpu(tmp_path, monkeypatch):
    pytest.importorskip("cuda.bindings.nvrtc")
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path))
    program = parse(SRC)
    # the file has a host launcher with <<<>>>: NVRTC only sees the device code
    assert "void launch" not in device_code(program)
    table = resources.ptxas_resources(program, "sm_90", backend="nvrtc")
    assert set(table) == KERNELS
    assert all(r.source == "ptxas (nvrtc)" and r.registers > 0 for r in table.values())


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_results_are_cached_by_source_hash(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path))
    program = parse(SRC)
    first = resources.ptxas_resources(program, "sm_90", backend="nvcc")

    def boom(*_a, **_k):
        raise AssertionError("compiled again despite the cache")

    monkeypatch.setattr(resources, "compile_nvcc", boom)
    assert resources.ptxas_resources(program, "sm_90", backend="nvcc") == first


def test_no_compiler_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(resources.CompilerUnavailable, match="nvcc not found"):
        resources.ptxas_resources(parse(SRC), "sm_90", backend="nvcc")


def test_ptxas_log_parsing():
    log = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z5spillPKfPfi' for 'sm_90'
ptxas info    : Function properties for _Z5spillPKfPfi
    152 bytes stack frame, 148 bytes spill stores, 148 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 152 bytes cumulative stack size, 372 bytes cmem[0]
ptxas info    : Compiling entry function 'copy' for 'sm_90'
ptxas info    : Function properties for copy
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 1 barriers, 1024 bytes smem, 368 bytes cmem[0]
"""
    t = parse_ptxas_log(log, "ptxas (nvcc)")
    assert t["spill"] == Resources(32, 148, 148, 152, 0, 0, "ptxas (nvcc)")
    assert t["copy"].registers == 8 and t["copy"].shared_static == 1024 and t["copy"].spill_stores == 0


def test_static_estimate_is_marked():
    p = parse(SRC)
    r = estimate_registers(p, p.function("reduce_shuffle"))
    assert r.source == "estimate" and not r.measured and 8 <= r.registers <= 255


def test_template_kernels_are_instantiated_for_ptxas(tmp_path, monkeypatch):
    pytest.importorskip("cuda.bindings.nvrtc")
    from analyzer.lint import LintSettings, lint_source

    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path))
    src = """template <int BLOCK, typename T>
__global__ void reduce(const T* in, T* out, int n) {
  __shared__ T s[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(out, s[0]);
}
"""
    res = lint_source(src, "t.cu", kernels=["reduce<256, float>"], settings=LintSettings(ptxas=True, ptxas_backend="nvrtc"))
    (k,) = res.kernels
    assert k.registers_source == "ptxas (nvrtc)" and k.registers > 0, res.notes


def _regex_words(text):
    """The estimate's word counts by its regular expressions (the reference for analyzer/_scan.pyx)."""
    w = resources._word_matches
    return (sum(1 for _ in w(resources._DECL, text)), sum(1 for _ in w(resources._VECTOR, text)),
            sum(1 for _ in w(resources._DOUBLE, text)), [m.span() + m.groups() for m in w(resources._LOCAL_ARRAY, text)])


def test_c_word_scan_counts_as_the_regular_expressions_do(monkeypatch):
    """The C scan (where built) against the regular expressions, on every kernel file and corpus source
    and on random text built from the words looked for, names, brackets and (Unicode) spaces and letters."""
    if resources._scan is None:
        pytest.skip("analyzer._scan is not built in this install (pure Python)")
    import random

    from corpus.families import all_samples

    root = Path(__file__).resolve().parent.parent
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(root.glob("**/*.cu*")) if p.is_file()]
    texts += sorted({s.source for s in all_samples()})
    words = ["int", "unsigned", "float", "size_t", "long", "double", "half", "float2", "float4", "int4", "auto",
             "bool", "double2", "x", "_y", "a1", "N", "é", "int_", "__shared__"]
    seps = [" ", "  ", "\t", "\n", "\x0b", "\x1c", "\u00a0", "\u2003", "[", "]", "(", ";", "*", ",", "=", "0", "_",
            "é", "\u0663"]
    rng = random.Random(0)
    texts += ["".join(rng.choice(words if rng.random() < 0.5 else seps) for _ in range(rng.randint(0, 14)))
              for _ in range(20000)]
    with_c = []
    for t in texts:
        d, v, b, arrays = resources.register_words(t)
        with_c.append((d, v, b, [m.span() + m.groups() for m in arrays]))
    assert with_c == [_regex_words(t) for t in texts]
    assert sum(r[0] for r in with_c) > 1000 and sum(len(r[3]) for r in with_c) > 100   # the cases occur
    monkeypatch.setattr(resources, "_scan", None)
    assert resources.register_words(texts[0])[:3] == with_c[0][:3]


# What the parser's pre-pass blanks so that tree-sitter can read a file (qualifier macros,
# `__align__`, `#pragma unroll`) is code to a compiler: ptxas must see the file as written.
MACRO_SRC = """#define KERNEL __global__
#define GRID_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
struct __align__(16) Quad { float a, b, c, d; };

void host_helper(float* p) { p[0] = 1.0f; }

KERNEL void scale(Quad* q, float* out, int n) {
    GRID_LOOP(i, n) {
#pragma unroll 4
        for (int k = 0; k < 8; ++k) out[i] += q[i].a * k;
    }
}

void launch(Quad* q, float* out, int n) { scale<<<n / 256, 256>>>(q, out, n); }

__global__ void plain(float* a) { a[threadIdx.x] = 2.0f; }
"""


def test_device_code_is_the_source_as_written_without_host_functions():
    program = parse(MACRO_SRC)
    code = device_code(program)
    # blanked for tree-sitter, kept for the compiler
    assert "KERNEL void scale" in code and "__align__(16)" in code and "#pragma unroll 4" in code
    assert "GRID_LOOP(i, n) {" in code          # the loop macro as written, not its expansion
    # host functions cut at the right places although the loop macro's expansion (longer than
    # its invocation) moved every later offset of the parsed text
    assert "host_helper" not in code and "void launch" not in code and "<<<" not in code
    assert "__global__ void plain(float* a) { a[threadIdx.x] = 2.0f; }" in code
    assert code.count("\n") == MACRO_SRC.count("\n")   # lines stay where they were


def test_nvrtc_compiles_a_kernel_behind_a_qualifier_macro(tmp_path, monkeypatch):
    pytest.importorskip("cuda.bindings.nvrtc")
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path))
    table = resources.ptxas_resources(parse(MACRO_SRC), "sm_90", backend="nvrtc")
    assert set(table) == {"scale", "plain"}
    assert table["scale"].registers > 0


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_nvcc_compiles_the_file_as_written(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path))
    table = resources.ptxas_resources(parse(MACRO_SRC), "sm_90", backend="nvcc")
    assert set(table) == {"scale", "plain"}


def test_template_int_args_of_mangled_instances():
    assert resources.template_int_args("_Z12rmsnorm_vec8ILi128ELi1EEvPK6__halfS2_PS0_iif") == (128, 1)
    assert resources.template_int_args("_Z4tileILin3ELj4EEvPf") == (-3, 4)   # negative, unsigned
    assert resources.template_int_args("_Z4tileIfLi4EEvPf") is None          # a type argument
    assert resources.template_int_args("_Z4tilePf") is None                  # no template
    log = ("ptxas info    : Compiling entry function '_Z4tileILi64EEvPf' for 'sm_90'\n"
           "ptxas info    : Used 20 registers, used 0 barriers\n"
           "ptxas info    : Compiling entry function '_Z4tileILi256EEvPf' for 'sm_90'\n"
           "ptxas info    : Used 40 registers, used 0 barriers\n")
    table = parse_ptxas_log(log, "ptxas (nvcc)")
    assert table["tile<64>"].registers == 20 and table["tile<256>"].registers == 40
    assert table["tile"].registers == 40     # the plain name: the last instance listed


INSTANCES = """
template <int BLOCK, int ITERS>
__global__ void __launch_bounds__(BLOCK) rows(const float4* __restrict__ x, float* __restrict__ y, int n) {
    float4 keep[ITERS];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < ITERS; ++k) {
        keep[k] = x[(blockIdx.x * ITERS + k) * BLOCK + threadIdx.x];
        s += keep[k].x * keep[k].y + keep[k].z * keep[k].w;
    }
    y[blockIdx.x * BLOCK + threadIdx.x] = s;
}
template __global__ void rows<128, 1>(const float4* __restrict__, float* __restrict__, int);
template __global__ void rows<256, 8>(const float4* __restrict__, float* __restrict__, int);
"""


def test_each_explicit_instance_gets_its_own_ptxas_figures(tmp_path, monkeypatch):
    pytest.importorskip("cuda.bindings.nvrtc")
    from analyzer.lint import LintSettings, lint_source

    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path))
    settings = LintSettings(ptxas=True, ptxas_backend="nvrtc")
    table = resources.ptxas_resources(parse(INSTANCES), "sm_90", backend="nvrtc")
    small, large = table["rows<128, 1>"], table["rows<256, 8>"]
    assert small.registers < large.registers      # eight float4 kept in registers, not one
    (k,) = lint_source(INSTANCES, "r.cu", settings=settings).kernels   # the first instance
    assert (k.block, k.registers) == ((128, 1, 1), small.registers)
    (k,) = lint_source(INSTANCES, "r.cu", settings=settings, kernels=["rows<256, 8>"]).kernels
    assert (k.block, k.registers) == ((256, 1, 1), large.registers)


def test_static_register_estimate_counts_template_sized_local_arrays():
    """`float buf[ITEMS]` in a template kernel: the instance's ITEMS sizes it (the estimate read the
    file's constants alone and counted no element, whatever ITEMS was)."""
    from analyzer.lint import lint_source

    src = """
    template <int BLOCK, int ITEMS>
    __global__ void gelu_unroll(const float* x, float* y, int n) {
        float buf[ITEMS];
        int base = (blockIdx.x * BLOCK) * ITEMS + threadIdx.x;
        #pragma unroll
        for (int k = 0; k < ITEMS; ++k) buf[k] = x[base + k * BLOCK];
        #pragma unroll
        for (int k = 0; k < ITEMS; ++k) y[base + k * BLOCK] = buf[k] * 0.5f;
    }"""
    regs = {k: lint_source(src, "g.cu", kernels=[k]).kernels[0].registers
            for k in ("gelu_unroll<256, 1>", "gelu_unroll<256, 8>", "gelu_unroll<256, 32>")}
    assert regs["gelu_unroll<256, 1>"] < regs["gelu_unroll<256, 8>"] < regs["gelu_unroll<256, 32>"]


# a template kernel whose parameter's type is a template the file does not declare (a header's
# tensor accessor), instantiated by a name expression: CUDA 13's NVRTC segfaults on it
UNDECLARED_ACCESSOR = """
template <typename T>
__global__ void scale(Accessor<T> out, T s) { }
"""


@pytest.fixture
def fresh_nvrtc_child():
    pytest.importorskip("cuda.bindings.nvrtc")
    resources._NvrtcChild.stop_all()     # the next compile forks a child from this test's state
    yield
    resources._NvrtcChild.stop_all()


def test_lint_survives_nvrtc_crashing_on_the_code(tmp_path, monkeypatch, fresh_nvrtc_child):
    """NVRTC runs in a child process: its crash is one failed compile (the lint ran in the crashing
    process, which ended with every other file's results); the next compile starts a new child."""
    from analyzer.lint import LintSettings, lint_source

    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path))
    settings = LintSettings(ptxas=True, ptxas_backend="nvrtc")
    r = lint_source(UNDECLARED_ACCESSOR, "a.cu", kernels=["scale<float>"], settings=settings)
    assert r.kernels[0].registers_source == "estimate"
    assert [n for n in r.notes if n.startswith("ptxas unavailable (NVRTC")], r.notes
    table = resources.compile_nvrtc('extern "C" __global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }', "sm_90")
    assert table["k"].registers > 0


def test_an_nvrtc_child_that_crashes_or_hangs_is_a_failed_compile(monkeypatch, fresh_nvrtc_child):
    import os
    import signal
    import time

    source = 'extern "C" __global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }'
    monkeypatch.setattr(resources, "_nvrtc_log", lambda *a: os.kill(os.getpid(), signal.SIGSEGV))
    with pytest.raises(resources.CompilerUnavailable, match="NVRTC crashed on this code: SIGSEGV"):
        resources.compile_nvrtc(source, "sm_90")
    monkeypatch.setattr(resources, "_nvrtc_log", lambda *a: time.sleep(30))
    start = time.monotonic()
    with pytest.raises(resources.CompilerUnavailable, match="time limit"):
        resources.compile_nvrtc(source, "sm_90", timeout=0.5)
    assert time.monotonic() - start < 10
    monkeypatch.undo()
    assert resources.compile_nvrtc(source, "sm_90")["k"].registers > 0


def test_the_reward_compile_gate_fails_code_that_crashes_nvrtc(monkeypatch, fresh_nvrtc_child):
    import os
    import signal

    from rewardmodel.reward import compile_gate

    monkeypatch.setattr(resources, "_nvrtc_log", lambda *a: os.kill(os.getpid(), signal.SIGSEGV))
    gate, table = compile_gate(parse('extern "C" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }'), "sm_90")
    assert gate.passed is False and "crashed" in gate.detail and table is None


def test_threads_compiling_at_once_each_get_an_answer(fresh_nvrtc_child):
    """A reward server compiles from several threads at once: each compile has a child of its own
    (one shared child mixed their requests and hung)."""
    from concurrent.futures import ThreadPoolExecutor

    sources = [f'extern "C" __global__ void k{i}(float* x) {{ x[threadIdx.x] *= {i}.0f; }}' for i in range(24)]
    with ThreadPoolExecutor(6) as pool:
        futures = [pool.submit(resources.compile_nvrtc, src, "sm_90") for src in sources]
        tables = [f.result(timeout=300) for f in futures]
    assert [sorted(t) for t in tables] == [[f"k{i}"] for i in range(24)]
    assert 1 <= len(resources._NvrtcChild._idle) <= 6


_CHILDREN_OF_AN_ENDED_PROCESS = """
import threading
from analyzer import resources
threads = [threading.Thread(target=resources.compile_nvrtc,
                            args=('extern "C" __global__ void k(float* x) { x[threadIdx.x] = 1.0f; }', "sm_90"))
           for _ in range(3)]
[t.start() for t in threads]
[t.join() for t in threads]
print(" ".join(str(c.pid) for c in resources._NvrtcChild._idle), flush=True)
"""


def test_the_children_end_with_their_process_and_keep_no_pipe_open():
    """The children of a process that ends go too (their request pipe closes), and none holds a
    copy of its output: a reader of that output (`| tail`, a test harness) sees it end."""
    import subprocess
    import sys
    import time

    pytest.importorskip("cuda.bindings.nvrtc")
    proc = subprocess.Popen([sys.executable, "-c", _CHILDREN_OF_AN_ENDED_PROCESS], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=300)     # hangs if a child kept the pipe
    assert proc.returncode == 0, err
    pids = [int(p) for p in out.split()]
    assert pids

    def alive(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    deadline = time.monotonic() + 30
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in pids if alive(p)]


def test_the_child_compiles_past_the_drivers_cache(monkeypatch, fresh_nvrtc_child):
    """On a machine with a GPU driver, NVRTC answers a source it compiled before from
    ~/.nv/ComputeCache with an empty ptxas log (no registers); the child turns that cache off."""
    import os

    monkeypatch.delenv("CUDA_CACHE_DISABLE", raising=False)
    monkeypatch.setattr(resources, "_nvrtc_log", lambda *a: os.environ.get("CUDA_CACHE_DISABLE", "unset"))
    assert resources._NvrtcChild.ask({"source": "", "arch": "sm_90", "names": [], "dirs": []}, 60) == "1"
    assert "CUDA_CACHE_DISABLE" not in os.environ       # the caller's own driver cache is left alone
