"""Function-like macros defined in the file are expanded where they are used (parse.preprocess),
and object-like ones whose body is an expression of the thread geometry.

An index macro (`#define IDX(r, c, ld) ((r) * (ld) + (c))`, common in hand-written and generated
kernels) was a call of an unknown function: the index unknown, and the uncoalesced store of a
naive transpose went unreported. Each expansion stays on its line; findings keep the columns of
the text as written, and quote accesses as written."""
from __future__ import annotations

import pytest

from analyzer.lint import lint_source
from analyzer.parse import _expand_macros, _function_macros

MACROS = """#define IDX(r, c, ld) ((r) * (ld) + (c))
__global__ void transpose(const float* in, float* out, int n) {
    int x = blockIdx.x * 32 + threadIdx.x;
    int y = blockIdx.y * 32 + threadIdx.y;
    if (x < n && y < n) out[IDX(x, y, n)] = in[IDX(y, x, n)];
}
void launch(const float* in, float* out, int n) {
    dim3 block(32, 32);
    transpose<<<dim3(n / 32, n / 32), block>>>(in, out, n);
}
"""
BY_HAND = MACROS.replace("IDX(x, y, n)", "((x) * (n) + (y))").replace("IDX(y, x, n)", "((y) * (n) + (x))")


def _summary(text):
    r = lint_source(text, "k.cu")
    return ([(f.code, f.line) for f in r.findings],
            [[(a.space, a.kind, e) for a, e in zip(c.accesses.accesses, c.estimates)] for c in r.contexts])


def test_an_index_macro_is_analyzed_as_its_expansion():
    assert _summary(MACROS) == _summary(BY_HAND)
    r = lint_source(MACROS, "k.cu")
    store = next(f for f in r.findings if f.code == "GM102")
    assert store.estimate["sectors_per_request"] == 32 and store.estimate["ideal_sectors_per_request"] == 4
    assert "`out[IDX(x, y, n)]`" in store.message     # quoted as written, not as expanded


def test_findings_keep_the_columns_as_written():
    line = ("    __shared__ float t[32 * 32];\n"
            "    t[IDX(threadIdx.x, threadIdx.y, 32)] = in[IDX(y, x, n)]; out[IDX(x, y, n)] = t[0];\n")
    text = MACROS.replace("    if (x < n && y < n) out[IDX(x, y, n)] = in[IDX(y, x, n)];\n", line)
    r = lint_source(text, "k.cu")
    written = text.splitlines()[5]
    cols = {f.code: f.col for f in r.findings if f.line == 6}
    assert cols["SM201"] == written.index("t[IDX") + 1
    assert cols["GM102"] == written.index("out[") + 1


def test_arguments_are_substituted_at_once_and_nested_macros_expand():
    src = (b"#define IDX(r, c, ld) ((r) * (ld) + (c))\n#define AT(a, r, c) a[IDX(r, c, 32)]\n"
           b"x = AT(t, c, r) + IDX(c, r, n);\n")
    text, shifts = _expand_macros(src)
    assert text.splitlines()[2] == b"x = t[((c) * (32) + (r))] + ((c) * (n) + (r));"
    assert len(shifts) == 2 and text.count(b"\n") == src.count(b"\n")


@pytest.mark.parametrize("define", [
    "#define CHECK(x) do { if (!(x)) return; } while (0)",
    "#define BLOCK(x) { x; }",
    "#define NAME(x) #x",
    "#define CAT(a, b) a##b",
    "#define LOG(fmt, ...) printf(fmt, ##__VA_ARGS__)",     # GNU's comma pasting
    "#define GNU(args...) f(args)",                          # GNU's named variadic parameter
    "#define UNBALANCED(x) ((x)",
])
def test_macros_that_are_no_expression_are_left_alone(define):
    assert _function_macros((define + "\n").encode()) == {}


def test_variadic_macros_take_the_rest_of_the_arguments():
    src = b"#define LOG(fmt, ...) printf(fmt, __VA_ARGS__)\n#define AT(p, ...) (p)[__VA_ARGS__]\nLOG(\"%d %d\", a, b); y = AT(x, i * 32);\n"
    assert _function_macros(src)[b"LOG"] == ([b"fmt", b"__VA_ARGS__"], b"printf(fmt, __VA_ARGS__)", False)
    text, _ = _expand_macros(src)
    assert text.splitlines()[2] == b'printf("%d %d", a, b); y = (x)[i * 32];'


def test_a_macro_defined_twice_differently_is_left_alone():
    src = b"#if A\n#define OFFSET(i) 0\n#else\n#define OFFSET(i) ((i) >> 5)\n#endif\ny = s[i + OFFSET(i)];\n"
    assert _function_macros(src) == {}
    assert _expand_macros(src) == (src, ())


def test_an_invocation_over_lines_is_expanded_on_its_first_line_and_lines_stay_exact():
    src = MACROS.replace("in[IDX(y, x, n)]", "in[IDX(y,  // row\n        x, n)]")
    text, _ = _expand_macros(src.encode())
    assert b"IDX(" not in text.split(b"\n", 1)[1] and text.count(b"\n") == src.count("\n")
    assert text.splitlines()[4].endswith(b"in[((y) * (n) + (x))") and text.splitlines()[5].strip() == b"];"
    r = lint_source(src, "k.cu")
    assert [(f.code, f.line) for f in r.findings] == [(f.code, f.line) for f in lint_source(MACROS, "k.cu").findings]
    assert [f.line for f in r.findings if f.code == "GM102"] == [5]


GEOMETRY = """#define WARPS_PER_BLOCK (blockDim.x / 32)
#define TID (blockIdx.x * blockDim.x + threadIdx.x)
__global__ void k(const float* x, float* y, int n) {
    int warp = blockIdx.x * WARPS_PER_BLOCK + threadIdx.x / 32;
    if (TID < n) y[TID] = x[warp * 32 + (threadIdx.x & 31)];
}
void launch(const float* x, float* y, int n) {
    k<<<n / 256, 256>>>(x, y, n);
}
"""
GEOMETRY_BY_HAND = GEOMETRY.replace("WARPS_PER_BLOCK +", "(blockDim.x / 32) +").replace(
    "TID", "(blockIdx.x * blockDim.x + threadIdx.x)").replace("#define (blockIdx.x * blockDim.x + threadIdx.x) (", "#define TID (")


@pytest.mark.parametrize("with_function_macro", [False, True])
def test_an_object_macro_of_the_thread_geometry_is_its_expansion(with_function_macro):
    # WARPS_PER_BLOCK was an unknown name, taken for a parameter of 4096 (a warp index 4096x too
    # large); TID the same. A file with a function-like macro too expands both kinds
    extra = "#define IDX(r, c, ld) ((r) * (ld) + (c))\n" if with_function_macro else ""
    got, want = _summary(extra + GEOMETRY), _summary(extra + GEOMETRY_BY_HAND)
    assert got == want
    (accesses,) = got[1]
    # neither name taken for a parameter of 4096 (n is: nobody gave it)
    assert all(e is not None and {"WARPS_PER_BLOCK", "TID"}.isdisjoint(e.assumed) for _, _, e in accesses)
    assert [e.units / e.requests for _, _, e in accesses] == [4.0, 4.0]


def test_a_geometry_macro_inside_a_function_macro_s_arguments_expands():
    text, _ = _expand_macros(b"#define TID (threadIdx.x)\n#define IDX(r, c) ((r) * 8 + (c))\n"
                             b"__global__ void k(float* y) { y[IDX(TID, 1)] = 0; }\n")
    assert b"y[((((threadIdx.x))) * 8 + (1))]" in text


@pytest.mark.parametrize("define", [
    "#define GRID_STRIDE for (int i = threadIdx.x; i < n; i += blockDim.x)",   # a statement
    "#define LANE_OK threadIdx.x < 32; x = 1",                                  # not one expression
    "#define BAD (threadIdx.x",                                                 # unbalanced
])
def test_object_macros_that_are_no_geometry_expression_are_left_alone(define):
    src = (define + "\n__global__ void k(float* y) { y[threadIdx.x] = 0; }\n").encode()
    assert _expand_macros(src) == (src, ())
