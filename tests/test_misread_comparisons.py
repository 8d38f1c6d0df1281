"""`(i < n && j >= 0)` inside parentheses is read by the grammar as the assignment `i<n && j> = 0`
to a template function (C++'s `<`...`>` ambiguity); the walker re-joins it as the comparison C
means. The same condition in an `if` parses right: the two must give the same guard."""
from __future__ import annotations

import pytest

from analyzer import symbolic as S
from analyzer.lint import LaunchSpec, lint_source

CONDITIONS = [
    "i < n && j >= 0",
    "i >= 0 && i < n && j >= 0",
    "i >= 0 && i < n && j >= 0 && j < m",
    "i < n || j >= 0 && j < m",
    "i < n && j >= 0 == 1",
    "i < n & j >= 0",
]


def _guard(body: str):
    src = ("__global__ void k(const float* x, float* y, int n, int m) {\n"
           "    int i = blockIdx.y * 8 - 1 + threadIdx.y, j = blockIdx.x * 32 - 1 + threadIdx.x;\n"
           f"    {body}\n}}\n")
    r = lint_source(src, "k.cu", launches={"k": LaunchSpec((32, 8, 1), (32, 32, 1), 0, {"n": 256, "m": 1024})})
    ctx = r.contexts[0]
    (load, est), = [(a, e) for a, e in zip(ctx.accesses.accesses, ctx.estimates) if a.kind == "load"]
    return S.to_str(load.guards[-1]), est


@pytest.mark.parametrize("cond", CONDITIONS)
def test_a_parenthesized_comparison_means_what_it_means_in_an_if(cond):
    ternary, est = _guard(f"y[0] = ({cond}) ? x[i * m + j] : 0.0f;")
    branch, est_if = _guard(f"if ({cond}) y[0] = x[i * m + j];")
    assert ternary == branch
    assert est is not None and est.requests == est_if.requests > 0     # was 0: a guard read as `... && 0`
