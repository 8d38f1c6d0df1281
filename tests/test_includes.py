"""Local headers' definitions (analyzer/includes.py): `#include "common.cuh"` brings its constants,
type aliases and structs into the file's analysis."""
from __future__ import annotations

from analyzer.lint import lint_source

KERNEL = """#include "include/common.cuh"
#include <cuda_runtime.h>
#include "not_there.cuh"
__global__ void scale(const real* __restrict__ x, real* y, int n) {
  __shared__ real s[BLOCK];
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) s[threadIdx.x] = x[i * TILE];
  __syncthreads();
  if (i < n) y[i] = s[threadIdx.x];
}
__global__ void parts(const Particle* p, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = p[i].x;
}
void run(const real* x, real* y) { scale<<<N / BLOCK, BLOCK>>>(x, y, N); }
"""


def project(tmp_path, kernel=KERNEL):
    inc = tmp_path / "include"
    inc.mkdir()
    (inc / "common.cuh").write_text('#pragma once\n#include "sizes.cuh"\n#define TILE (BLOCK / 8)\n'
                                    "typedef float real;\nstruct Particle { float x, y, z, m; };\n")
    (inc / "sizes.cuh").write_text('#include "common.cuh"\n#define BLOCK 128\n#define N (1 << 20)\n')   # a cycle
    (tmp_path / "k.cu").write_text(kernel)
    return tmp_path / "k.cu"


def kernels(res):
    return {k.name: k for k in res.kernels}


def test_constants_types_and_structs_of_nested_local_headers_count(tmp_path):
    path = project(tmp_path)
    res = lint_source(path.read_text(), str(path))
    k = kernels(res)
    assert k["scale"].block == (128, 1, 1) and "the launch at line 15" in k["scale"].launch_source
    assert k["scale"].global_load_sectors_per_request == 32.0     # x[i * TILE], TILE = 128 / 8 floats apart
    assert k["parts"].global_load_sectors_per_request == 16.0     # a 16-byte Particle's x
    assert k["scale"].shared_bytes == 128 * 4


def test_the_files_own_definitions_win_and_an_in_memory_source_reads_no_headers(tmp_path):
    path = project(tmp_path, "#define BLOCK 64\n" + KERNEL)
    assert kernels(lint_source(path.read_text(), str(path)))["scale"].block == (64, 1, 1)
    # a reward's candidate (a path that is no file) is analyzed as written, whatever is on the disk
    res = lint_source(KERNEL, "<candidate>")
    assert kernels(res)["scale"].block != (128, 1, 1)


def test_without_the_headers_the_sizes_are_unknown(tmp_path):
    path = project(tmp_path)
    for h in (tmp_path / "include").iterdir():
        h.unlink()
    k = kernels(lint_source(path.read_text(), str(path)))
    assert k["scale"].block == (256, 1, 1) and k["parts"].global_load_sectors_per_request is None


def test_ptxas_compiles_the_file_with_its_local_headers(tmp_path, monkeypatch):
    """--ptxas: the headers stay included (NVRTC and nvcc get the file's folder with -I); they were
    stripped as host headers, so a kernel sized by one did not compile and had static estimates."""
    import shutil

    import pytest

    from analyzer.lint import LintSettings

    if shutil.which("nvcc") is None:
        pytest.skip("needs nvcc")
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path / "cache"))
    path = project(tmp_path, KERNEL.replace('#include "not_there.cuh"\n', ""))     # (a compiler would stop there)
    res = lint_source(path.read_text(), str(path), settings=LintSettings(ptxas=True, ptxas_backend="nvcc"))
    assert not [n for n in res.notes if "ptxas unavailable" in n], res.notes
    assert kernels(res)["scale"].registers_source.startswith("ptxas")
