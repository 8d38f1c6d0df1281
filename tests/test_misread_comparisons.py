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


def _guard_expr(body: str):
    src = ("__global__ void k(const float* x, float* y, int n, int m) {\n"
           "    int i = blockIdx.y * 8 - 1 + threadIdx.y, j = blockIdx.x * 32 - 1 + threadIdx.x;\n"
           f"    {body}\n}}\n")
    r = lint_source(src, "k.cu", launches={"k": LaunchSpec((32, 8, 1), (32, 32, 1), 0, {"n": 256, "m": 1024})})
    ctx = r.contexts[0]
    (load, est), = [(a, e) for a, e in zip(ctx.accesses.accesses, ctx.estimates) if a.kind == "load"]
    return load.guards[-1], est


def _guard(body: str):
    guard, est = _guard_expr(body)
    return S.to_str(guard), est


def _flat(e):
    """An expression with chains of one && or || as flat lists, whatever their grouping."""
    if e[0] == "b" and e[1] in ("&&", "||"):
        out = []
        for side in (e[2], e[3]):
            f = _flat(side)
            out.extend(f[2] if f[0] == "chain" and f[1] == e[1] else [f])
        return ("chain", e[1], out)
    if e[0] == "b":
        return ("b", e[1], _flat(e[2]), _flat(e[3]))
    return e


@pytest.mark.parametrize("cond", CONDITIONS)
def test_a_parenthesized_comparison_means_what_it_means_in_an_if(cond):
    ternary, est = _guard(f"y[0] = ({cond}) ? x[i * m + j] : 0.0f;")
    branch, est_if = _guard(f"if ({cond}) y[0] = x[i * m + j];")
    assert ternary == branch
    assert est is not None and est.requests == est_if.requests > 0     # was 0: a guard read as `... && 0`


SHIFTS = [
    ("i < n && j >> 1", "(i < n) && (j >> 1)"),
    ("i >= 0 && i < n && j >> 1", "(i >= 0) && (i < n) && (j >> 1)"),
    ("i < n && j >> 1 && j < m", "(i < n) && (j >> 1) && (j < m)"),
    ("i < n || j >> 2", "(i < n) || (j >> 2)"),
]


@pytest.mark.parametrize("cond,meant", SHIFTS)
def test_a_comparison_before_a_shift_is_not_a_template(cond, meant):
    # `i < n && j >> 1` reads as `i<n && j> > 1` (a template compared with 1), in an `if` too
    for form in ("y[0] = ({c}) ? x[i * m + j] : 0.0f;", "if ({c}) y[0] = x[i * m + j];"):
        got, est = _guard_expr(form.format(c=cond))
        want, est_meant = _guard_expr(form.format(c=meant))
        assert _flat(got) == _flat(want)      # `a && (b && c)` is `(a && b) && c`
        assert est is not None and est.requests == est_meant.requests > 0
