"""Global values the compiler keeps in registers: a load of a value loaded or stored before in
the same iteration, on every path to it, is no request (until a store that may write it, an
atomic or a barrier)."""
from __future__ import annotations

import pytest

from analyzer.lint import LaunchSpec, lint_source


REUSE = """__global__ void k(const float* {r} x, float* {r} y, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = x[i] * x[i];
    y[i] = a;
    float b = y[i] + x[i];
    if (a > 0) b += x[i];
    y[i] = b;
    __syncthreads();
    b = x[i];
    y[i + 1] = b;
}}
"""


@pytest.mark.parametrize("restrict,loads", [("", [4, 6, 10]), ("__restrict__", [4, 10])])
def test_a_global_value_loaded_or_stored_before_is_not_loaded_again(restrict, loads):
    # line 4 loads x[i] once; line 6 reads y[i] back from the store before it, and x[i] again only
    # where the store to y may have written it (no __restrict__); line 7's x[i] under a condition
    # is line 6's (or 4's); after the barrier x[i] is loaded again
    r = lint_source(REUSE.format(r=restrict), "k.cu", launches={"k": LaunchSpec((256, 1, 1), (16, 1, 1), 0, {"n": 4096})})
    acc = r.contexts[0].accesses.accesses
    assert [a.line for a in acc if a.kind == "load"] == loads
    assert [a.line for a in acc if a.kind == "store"] == [5, 8, 11]


def test_a_load_under_a_condition_does_not_stand_for_a_later_one():
    src = """__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = 0.0f;
    if (i < n) a = x[i];
    float b = x[i];
    y[0] = a + b;
}
"""
    r = lint_source(src, "k.cu", launches={"k": LaunchSpec((256, 1, 1), (16, 1, 1), 0, {"n": 4096})})
    assert [a.line for a in r.contexts[0].accesses.accesses if a.kind == "load"] == [4, 5]
