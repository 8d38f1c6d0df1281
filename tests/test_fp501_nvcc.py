"""FP501 against nvcc: a statement per kernel, compiled to PTX; a literal is flagged exactly
where nvcc does the arithmetic in FP64 (it does one operation of a float with a literal that
float holds exactly in FP32 when the result is a float at once; not a chain, an int operand,
an inexact literal or a double function)."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from analyzer.lint import lint_source

STATEMENTS = [
    "y[i] = x[i] * 0.5;",
    "y[i] = x[i] * 0.1;",
    "y[i] = 0.5 * x[i] * x[i+1];",
    "y[i] = x[i] / 4.0 + 1.0f;",
    "y[i] = (x[i] + 1.0);",
    "y[i] = x[i] - 2.0;",
    "float a = x[i] * 2.0; y[i] = a;",
    "float a = 2.0 * x[i] * x[i]; y[i] = a;",
    "y[i] = x[i] > 0.0 ? x[i] : 0.0;",
    "y[i] = x[i] < 1e-6 ? 1e-6 : x[i];",
    "if (x[i] > 0.5) y[i] = 1.f;",
    "if (x[i] > 0.3) y[i] = 1.f;",
    "y[i] = expf(x[i] * 0.5);",
    "y[i] = expf(x[i] * 0.3);",
    "y[i] = sqrtf(x[i] / 2.0);",
    "y[i] = sqrt(x[i] / 2.0);",
    "y[i] = fmaxf(x[i] - 1.0, 0.f);",
    "y[i] *= 2.0;",
    "y[i] += 1.0;",
    "y[i] += x[i] * 2.0;",
    "y[i] = x[i] * i * 0.5;",
    "y[i] = (x[i] * 0.5) + (x[i+1] * 0.5);",
    "y[i] = x[i] * (1.0 / 3);",
    "y[i] = x[i] * 1e3;",
    "y[i] = -x[i] * 3.0;",
    "y[i] = (x[i] + x[i+1]) * 0.25;",
    "y[i] = 1.0 / x[i];",
    "y[i] = 1.0 - x[i];",
    "y[i] = 1.0 - 1.0 / x[i];",
    "int k = x[i] * 2.0; y[i] = k;",
    "y[i] = x[i] * 65536.0;",
    "y[i] = x[i] * 0.125 - 0.5f;",
    "float a = x[i]; a /= 8.0; y[i] = a;",
    "float a = (x[i] > 0) ? 1.0 : -1.0; y[i] = a * x[i];",
    "y[i] = x[i] * (x[i] > 0 ? 1.0 : 0.5);",
    "y[i] = __expf(x[i] * 2.0);",
    "y[i] = x[i] == 0.0 ? 1.f : x[i];",
    "y[i] = (float)(x[i] * 0.5);",
    "float a = (x[i] > 0) + .1; y[i] = a;",
    "y[i] = 0.5 * (x[i] + x[i+1]) * x[i+2];",
    "y[i] = x[i] * 0.5f * 2.0;",
    "float t = x[i]; t = t * t * 0.5; y[i] = t;",
    "y[i] = (n - 1.0) * x[i];",
    "y[i] = x[i] / (float)n * 2.0;",
    "y[i] = x[i] * (float)(1.0 / 3);",
    "float m = fmaxf(x[i], 1.0) * 0.5; y[i] = m;",
    "float e = x[i]; e = (x[i+1] > .5) ? 1./e : e; y[i] = e;",
    "y[i] = (x[i] > 0) ? x[i] : .5 * x[i];",
]
# FP64 arithmetic in PTX (conversions alone are not: `cvt.f64.f32` feeding nothing)
_FP64_OP = re.compile(r"\b(?:add|sub|mul|fma|div|rcp|sqrt|setp|min|max)[\w.]*\.f64\b")


def _source() -> str:
    return "".join(f"__global__ void k{k}(const float* x, float* y, int n) {{\n"
                   f"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i >= n) return;\n  {s}\n}}\n"
                   for k, s in enumerate(STATEMENTS))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_fp501_flags_what_nvcc_does_in_fp64(tmp_path):
    src = tmp_path / "fp.cu"
    src.write_text(_source())
    ptx = tmp_path / "fp.ptx"
    subprocess.run(["nvcc", "-arch=sm_90", "-ptx", "-o", str(ptx), str(src)], check=True, capture_output=True,
                   timeout=300)
    bodies = {}
    for mangled, body in re.findall(r"\.entry\s+(\w+)\((.*?)\n\}", ptx.read_text(), re.S):
        m = re.fullmatch(r"_Z\d+k(\d+)P\w*", mangled)
        bodies[int(m.group(1))] = body
    flagged = {f.kernel for f in lint_source(_source(), "fp.cu").findings if f.code == "FP501"}
    wrong = [(s, bool(_FP64_OP.search(bodies[k]))) for k, s in enumerate(STATEMENTS)
             if bool(_FP64_OP.search(bodies[k])) != (f"k{k}" in flagged)]
    assert not wrong, f"FP501 disagrees with nvcc's PTX on (statement, FP64 in PTX): {wrong}"
    # both kinds are in the table
    assert 10 < len(flagged) < len(STATEMENTS) - 10


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_the_fix_leaves_no_fp64_arithmetic_and_no_finding(tmp_path):
    """`lint --fix` on the table: the fixed file compiles, FP501 finds nothing in it, and nvcc's
    PTX of every kernel that had FP64 arithmetic from a literal has none left."""
    from analyzer import fix

    before = _source().encode()
    edits = [e for f in lint_source(_source(), "fp.cu").findings if f.code == "FP501" for e in f.fix]
    after, applied = fix.apply(before, edits)
    assert len(applied) == len(edits) > 10
    src = tmp_path / "fixed.cu"
    src.write_bytes(after)
    ptx = tmp_path / "fixed.ptx"
    subprocess.run(["nvcc", "-arch=sm_90", "-ptx", "-o", str(ptx), str(src)], check=True, capture_output=True,
                   timeout=300)
    left = [m for m, body in re.findall(r"\.entry\s+(\w+)\((.*?)\n\}", ptx.read_text(), re.S) if _FP64_OP.search(body)]
    assert left == []
    assert [f for f in lint_source(after.decode(), "fixed.cu").findings if f.code == "FP501"] == []
