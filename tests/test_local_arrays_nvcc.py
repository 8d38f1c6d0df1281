"""Local arrays in registers or in local memory, against ptxas: the static register estimate
counts an array's elements as registers only where ptxas can keep it there, where every index is
a constant or a counter of a loop with constant bounds (unrolled). An array indexed by a runtime
value or passed on as a pointer lives on the stack (mmcv's knn keeps 2 x 100 elements that way:
the estimate said 255 registers and 12% occupancy, ptxas 40 registers)."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from analyzer.parse import parse
from analyzer.resources import estimate_registers, register_features

KERNELS = {
    # nearest neighbours kept in a sorted list of a size the caller gives, sifted by a helper
    "runtime_bound": ("""
__device__ void sift(float* d, int* w, int k) {
    for (int i = 0; i + 1 < k && d[i] < d[i + 1]; ++i) {
        float t = d[i]; d[i] = d[i + 1]; d[i + 1] = t;
        int u = w[i]; w[i] = w[i + 1]; w[i + 1] = u;
    }
}
extern "C" __global__ void runtime_bound(const float* pts, const float* q, int* out, int n, int k) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float best[64];
    int which[64];
    for (int i = 0; i < k; ++i) { best[i] = 1e30f; which[i] = 0; }
    for (int j = 0; j < n; ++j) {
        float d = fabsf(pts[j] - q[t]);
        if (d < best[0]) { best[0] = d; which[0] = j; sift(best, which, k); }
    }
    for (int i = 0; i < k; ++i) out[t * k + i] = which[i];
}
""", False),
    # the same list through a runtime index only, no helper
    "runtime_index": ("""
extern "C" __global__ void runtime_index(const float* x, float* y, int n, int k) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float hist[32];
    for (int i = 0; i < 32; ++i) hist[i] = 0.0f;
    for (int j = 0; j < n; ++j) hist[(int)x[t * n + j] & 31] += 1.0f;
    y[t] = hist[k & 31];
}
""", False),
    # a register tile: constant loops, unrolled
    "unrolled": ("""
#define TM 8
extern "C" __global__ void unrolled(const float* a, float* c, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[TM];
#pragma unroll
    for (int i = 0; i < TM; ++i) acc[i] = 0.0f;
    for (int j = 0; j < n; ++j) {
        float v = a[j * 256 + t];
#pragma unroll
        for (int i = 0; i < TM; ++i) acc[i] += v * (float)(i + 1);
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) c[i * 256 + t] = acc[i];
}
""", True),
}


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_local_array_elements_count_only_where_they_are_registers(name):
    src, in_registers = KERNELS[name]
    p = parse(src)
    (k,) = [f for f in p.functions if f.kind == "global"]
    elements = register_features(p, k)["array_elements"]
    assert (elements > 0) == in_registers, elements
    if not in_registers:    # no 64 or 128 elements' worth of registers on top of the code's own
        assert estimate_registers(p, k).registers < 48


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_ptxas_puts_the_arrays_where_the_estimate_says(tmp_path):
    """ptxas's stack frame: bytes on the stack for the arrays the estimate leaves out, none for the
    unrolled tile it counts."""
    for name, (src, in_registers) in KERNELS.items():
        path = tmp_path / f"{name}.cu"
        path.write_text(src)
        out = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-Xptxas", "-v", "-o", str(tmp_path / f"{name}.cubin"),
                              str(path)], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        frames = [int(b) for b in re.findall(r"(\d+) bytes stack frame", out.stderr + out.stdout)]
        assert frames, out.stderr
        assert (max(frames) == 0) == in_registers, (name, out.stderr)
