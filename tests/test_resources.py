"""Registers and spills from ptxas (nvcc and NVRTC, no GPU needed) and the static fallback."""
from __future__ import annotations

import shutil

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
    assert r.source == "estimate" and not r.measured and 16 <= r.registers <= 255


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
