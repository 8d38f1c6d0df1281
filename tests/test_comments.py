"""A comment wherever the text has one changes nothing in the analysis.

tree-sitter puts a comment, as a named child, into whatever node encloses it. Code that read
children by position took the comment for code: `return;  // out of range` as the last statement
of a block hid the early exit (a bounds-guard finding on guarded code), a comment in a condition
or an index made it unknown, one among a call's arguments bound the wrong parameters of an inlined
device function, and one in a launch's configuration or `__launch_bounds__` lost the block shape.
Each case is linted with and without its comments: the same findings, launches and estimates."""
from __future__ import annotations

import re

import pytest

from analyzer.lint import lint_source

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*")

CASES = {
    "return then a comment ends the block": """__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;  // out of range
    }
    y[i] = x[i];
}
""",
    "comment in a condition": """__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n /* in range */) y[i] = x[i];
}
""",
    "comment in an index": """__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[/* element */ i * 2];
}
""",
    "comment in parentheses": """__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[(i /* shifted */) * 4] = x[i];
}
""",
    "comment among a device function's arguments": """__device__ int at(int row, int stride) { return row * stride; }
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[at(i /* row */, 32)] = x[i];
}
""",
    "comments in launch configurations": """__global__ void __launch_bounds__(/* max threads */ 128) k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i * 3];
}
__global__ void k2(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i * 5];
}
__global__ void k3(const float* x, float* y, int n) {
    int i = threadIdx.y * 256 + blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i];
}
void launch(const float* x, float* y, int n) {
    k2<<<(n + 63) / 64, /* threads */ 64>>>(x, y, n);
    dim3 block(32 /* x */, 4);
    k3<<<n / 128, block>>>(x, y, n);
}
""",
}


def _analysis(text: str):
    r = lint_source(text, "k.cu")
    findings = sorted((f.code, f.line, f.kernel) for f in r.findings)
    kernels = [(c.kernel.name, c.launch.block, c.launch_source,
                [(a.space, a.kind, a.line, e) for a, e in zip(c.accesses.accesses, c.estimates)])
               for c in r.contexts]
    return findings, kernels


@pytest.mark.parametrize("name", CASES)
def test_comments_change_nothing(name):
    text = CASES[name]
    plain = _COMMENT.sub(lambda m: " " * len(m.group(0)), text)   # same lines and columns
    assert plain != text
    assert _analysis(text) == _analysis(plain)


def test_the_guarded_store_has_no_bounds_finding():
    r = lint_source(CASES["return then a comment ends the block"], "k.cu")
    assert not [f for f in r.findings if f.code == "GM104"]


def test_commented_launches_keep_their_block_shapes():
    r = lint_source(CASES["comments in launch configurations"], "k.cu")
    blocks = {c.kernel.name: c.launch.block for c in r.contexts}
    assert blocks == {"k": (128, 1, 1), "k2": (64, 1, 1), "k3": (32, 4, 1)}
