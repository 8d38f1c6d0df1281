"""Conditional directives: the analysis reads the branch the compile takes (analyzer/directives.py)."""
from __future__ import annotations

import pytest

from analyzer.directives import OPEN, Macros, device_macros, holds, lookup_for
from analyzer.lint import LintSettings, lint_source
from analyzer.parse import _get_parser, parse


def _holds(condition: str, *, defined=(), constants=None, macros=OPEN, device=True):
    src = f"{condition}\nint a;\n#else\nint b;\n#endif\n".encode()
    node = _get_parser().parse(src).root_node.children[0]
    lookup = lookup_for(set(defined).__contains__, constants or {}, macros, device)
    return holds(node, lambda n: src[n.start_byte:n.end_byte].decode(), lookup)


@pytest.mark.parametrize("condition, expected", [
    ("#if 0", False), ("#if 1", True), ("#if (2 + 2) * 4 == 16", True), ("#if 7 / 2 == 3 && -7 / 2 == -3", True),
    ("#if !0", True), ("#if 1 ? 0 : 1", None), ("#if 010 == 8", True), ("#if 0x10 > 15u", True),
    ("#if 1 << 3 == 8", True), ("#if true", True),
    ("#ifdef USE_BIG", True), ("#ifndef USE_BIG", False), ("#if defined(USE_BIG) && TILE >= 32", True),
    ("#if defined TILE && TILE == 16", False),
    ("#ifdef NEVER", None), ("#if NEVER", None), ("#if NEVER > 1", None),
    ("#if 0 && NEVER", False), ("#if 1 || NEVER", True), ("#if NEVER && 0", False), ("#if NEVER || 1", True),
    ("#if 1 / 0", None), ("#if 1.5", None),
    ("#ifdef __CUDACC__", True), ("#ifdef __CUDA_ARCH__", True), ("#ifndef __CUDA_ARCH__", False),
    ("#if __CUDA_ARCH__ >= 800", None),   # no arch given: no value
])
def test_a_condition_is_decided_by_what_the_file_and_the_compile_define(condition, expected):
    assert _holds(condition, defined={"USE_BIG", "TILE"}, constants={"TILE": 32}) is expected


def test_a_closed_compile_has_nothing_but_the_file_and_its_own_names():
    closed = device_macros("sm_90", closed=True)
    assert closed == Macros({"__CUDA_ARCH__": 900}, True)
    assert _holds("#ifdef NEVER", macros=closed) is False
    assert _holds("#ifndef NEVER", macros=closed) is True
    assert _holds("#if NEVER", macros=closed) is False          # an undefined name is 0
    assert _holds("#if __CUDA_ARCH__ >= 800", macros=closed) is True
    assert _holds("#if __CUDA_ARCH__ >= 1000", macros=closed) is False
    assert _holds("#if defined(A) || defined(B)", macros=Macros({"B": 1})) is True
    assert _holds("#if A", macros=Macros({"A": 0})) is False
    # what the headers it includes may define stays undecided
    for name in ("CUDART_VERSION", "__CUDA_BF16_TYPES_EXIST__", "TORCH_HIP_VERSION", "CUB_VERSION", "_WIN32"):
        assert _holds(f"#ifdef {name}", macros=closed) is None
        assert _holds(f"#if {name} >= 11000", macros=closed) is None


def test_file_scope_leaves_cuda_arch_undecided():
    """Host code is compiled at file scope too, where __CUDA_ARCH__ is undefined."""
    assert _holds("#ifdef __CUDA_ARCH__", device=False) is None
    assert _holds("#if __CUDA_ARCH__ >= 800", macros=device_macros("sm_90"), device=False) is None
    assert _holds("#ifdef __CUDACC__", device=False) is True
    assert device_macros(None) == OPEN and device_macros("gfx90a") == OPEN


def _kernel(first: str, second: str, directive: str, head: str = "") -> str:
    return f"""{head}__global__ void k(const float* x, float* y, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
{directive}
    y[{first}] = x[{first}];
#else
    y[{second}] = x[{second}];
#endif
}}
"""


def _strided(src: str, **kw) -> bool:
    """Whether the uncoalesced pair (GM101, GM102) is reported: the strided branch was read."""
    codes = {f.code for f in lint_source(src, "k.cu", **kw).findings}
    assert codes & {"GM101", "GM102"} in (set(), {"GM101", "GM102"})
    return "GM101" in codes


@pytest.mark.parametrize("directive, head, strided_runs", [
    ("#if 0", "", False), ("#if 1", "", True),
    ("#ifdef USE_STRIDE", "#define USE_STRIDE\n", True), ("#ifndef USE_STRIDE", "#define USE_STRIDE\n", False),
    ("#if MODE == 2", "#define MODE 1\n", False),
    ("#ifdef __CUDA_ARCH__", "", True), ("#ifndef __CUDA_ARCH__", "", False),
    ("#if __CUDA_ARCH__ >= 800", "", True),     # the default arch, sm_90
    ("#ifdef FROM_THE_COMMAND_LINE", "", True),  # undecided: the first branch, as before
])
def test_a_kernel_body_is_analyzed_on_the_branch_compiled(directive, head, strided_runs):
    """Before, a body's `#if` was read on its first branch whatever the condition, and its
    `#else` never: `#if 0` code was reported and the code that runs was not."""
    src = _kernel("i * 32", "i", directive, head)
    assert _strided(src) is strided_runs


def test_the_arch_linted_decides_cuda_arch_in_a_body():
    src = _kernel("i * 32", "i", "#if __CUDA_ARCH__ >= 900")
    assert _strided(src, settings=LintSettings(arch="sm_90"))
    assert not _strided(src, settings=LintSettings(arch="sm_80"))


def test_nested_directives_in_a_body_are_read():
    src = """#define OUTER 1
__global__ void k(const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#if OUTER
#if 0
    y[i] = x[i];
#else
    y[i * 32] = x[i * 32];
#endif
#endif
}
"""
    assert _strided(src)


def test_a_shared_tile_declared_in_a_branch_not_compiled_is_not_the_tile():
    src = """#define PAD 1
__global__ void t(float* out, const float* in) {
#if PAD
    __shared__ float tile[32][33];
#else
    __shared__ float tile[32][32];
#endif
    tile[threadIdx.x][threadIdx.y] = in[threadIdx.y * 32 + threadIdx.x];
    __syncthreads();
    out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.y][threadIdx.x];
}
"""
    res = lint_source(src, "t.cu")
    assert [a.dims for a in res.contexts[0].kernel.shared] == [(32, 33)]
    assert "SM201" not in [f.code for f in res.findings]
    res = lint_source(src.replace("#define PAD 1", "#define PAD 0"), "t.cu")
    assert [a.dims for a in res.contexts[0].kernel.shared] == [(32, 32)]
    assert "SM201" in [f.code for f in res.findings]


def test_a_kernel_the_device_pass_does_not_compile_is_not_analyzed():
    fake = "__global__ void k(float* y) { y[threadIdx.x] = 0.f; }\n"
    real = "__global__ void k(float* y) { y[threadIdx.x * 32] = 0.f; }\n"
    for directive in ("#ifndef __CUDA_ARCH__", "#if !defined(__CUDA_ARCH__)", "#if 0"):
        program = parse(f"{directive}\n{fake}#else\n{real}#endif\n")
        assert [f.line for f in program.kernels] == [4], directive
    # undecided at file scope: both, as before
    assert [f.line for f in parse(f"#ifdef USE_A\n{fake}#else\n{real}#endif\n").kernels] == [2, 4]
    # include guards hide nothing
    assert len(parse(f"#ifndef K_CUH\n#define K_CUH\n{real}#endif\n").kernels) == 1
