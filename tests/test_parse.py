from __future__ import annotations

import pytest

from analyzer import ParserUnavailable, parse as parse_mod
from analyzer.lint import lint_source
from analyzer.parse import eval_constant, parse, preprocess
from analyzer.rules import all_rules

SRC = b"""
#define TILE 32
#define HALF (TILE / 2)
constexpr int BLOCK = 256;
const int ROWS = 8;
__constant__ float weights[9];
template <int BS = 128, typename T>
__global__ void __launch_bounds__(BLOCK, 2) k(const float* __restrict__ a, float4* b, int n) {
  __shared__ float tile[TILE][TILE + 1];
  extern __shared__ float dyn[];
  b[0].x = a[threadIdx.x];
}
__device__ __forceinline__ float helper(float x) { return x; }
void host(float* a, float4* b, int n) {
  dim3 block(TILE, ROWS);
  k<256><<<dim3(n / 256, 1), block, 1024>>>(a, b, n);
  k<<<4, BLOCK>>>(a, b, n);
}
#pragma once"""


def test_model_of_a_file():
    p = parse(SRC, "x.cu")
    assert p.constants["TILE"] == 32 and p.constants["HALF"] == 16 and p.constants["BLOCK"] == 256 and p.constants["ROWS"] == 8
    (k,) = p.kernels
    assert k.name == "k" and k.kind == "global"
    assert [(q.name, q.type, q.pointer, q.const, q.restrict) for q in k.params] == [
        ("a", "float", 1, True, True), ("b", "float4", 1, False, False), ("n", "int", 0, False, False)]
    assert k.template_params == {"BS": 128, "T": None}
    assert k.launch_bounds.max_threads == 256 and k.launch_bounds.min_blocks == 2
    shared = {s.name: s for s in k.shared}
    assert shared["tile"].dims == (32, 33) and not shared["tile"].extern
    assert shared["dyn"].extern and shared["dyn"].dims == (None,)
    assert p.function("helper").kind == "device" and p.function("host").kind == "host"
    assert [g.name for g in p.globals_] == ["weights"] and p.globals_[0].space == "constant"
    first, second = p.launches
    assert first.template_args == ("256",) and first.block == (32, 8, 1) and first.smem == 1024 and first.grid is None
    assert second.block == (256, 1, 1) and second.grid == (4, 1, 1)
    assert not p.errors  # a final preprocessor line without newline must not break the tree


def test_host_locals_for_launches_stay_in_their_function():
    # `threads` and `block` of one host function are not the other's: the second launch's sizes
    # come from its own parameters, unknown here
    src = b"""__global__ void k(float* y) { y[threadIdx.x] = 0; }
void first(float* y) {
  const int threads = 128;
  dim3 block(16, 8);
  k<<<4, threads>>>(y);
  k<<<4, block>>>(y);
}
void second(float* y, int threads, dim3 block) {
  k<<<4, threads>>>(y);
  k<<<4, block>>>(y);
}
"""
    p = parse(src)
    assert [l.block for l in p.launches] == [(128, 1, 1), (16, 8, 1), None, None]


def test_launches_inside_try_catch_and_range_for_are_launch_sites():
    # a host function that launches inside `try { ... }` (a public PageRank) had no launch site at all:
    # the walk did not enter try, catch or range-for statements
    src = b"""__global__ void k(float* y) { y[threadIdx.x] = 0; }
void run(float* y, std::vector<int>& v) {
  try {
    const int block_size = 128;
    for (int it = 0; it < 10; it++) k<<<4, block_size>>>(y);
  } catch (const std::exception& e) {
    k<<<1, 64>>>(y);
  }
  for (auto n : v) { k<<<n, 32>>>(y); }
}
"""
    assert [(l.kernel, l.block, l.line) for l in parse(src).launches] == [
        ("k", (128, 1, 1), 5), ("k", (64, 1, 1), 7), ("k", (32, 1, 1), 9)]


def test_a_launch_behind_a_macro_is_a_launch_site():
    # sglang's and vLLM's `#define LAUNCH_MERGE_ATTN_STATES(scalar_t, NUM_THREADS) { k<...><<<grid, block>>>(...); }`
    # used in a host function that declares grid and block: the launch was not seen (the default block 256)
    src = b"""template <typename T, unsigned NT>
__global__ void scale(T *out, const T *in, unsigned n) {
  unsigned i = blockIdx.x * NT + threadIdx.x;
  if (i < n) out[i] = in[i] * 2;
}
#define LAUNCH_SCALE(T, NT)                          \\
  {                                                  \\
    scale<T, NT><<<grid, block>>>(out, in, n);       \\
  }
void run(float *out, const float *in, unsigned n) {
  constexpr unsigned NUM_THREADS = 128;
  dim3 block(NUM_THREADS);
  dim3 grid((n + NUM_THREADS - 1) / NUM_THREADS);
  LAUNCH_SCALE(float, NUM_THREADS);
}
"""
    (l,) = parse(src).launches
    assert (l.kernel, l.template_args, l.block, l.line) == ("scale", ("float", "128"), (128, 1, 1), 14)


def test_partial_parse_keeps_what_parsed():
    src = b"""__global__ void good(float* y) { y[threadIdx.x] = 1.0f; }
    int broken( {
    __global__ void after(float* y) { y[threadIdx.x] = 2.0f; }
    """
    p = parse(src)
    assert "good" in [k.name for k in p.kernels]
    assert p.errors and p.errors[0].line >= 2


def test_prepass_keeps_offsets_and_recovers_macro_hidden_kernels():
    src = b"""#define MY_DEVICE __device__ __forceinline__
#define KERNEL_QUALIFIERS __global__
MY_DEVICE float twice(float x) { return 2 * x; }
KERNEL_QUALIFIERS void k(float* __align__(16) y) {
  FOO_PRAGMA_UNROLL
  for (int i = 0; i < 4; ++i) y[threadIdx.x + i] = twice(i);
}
__global__ void __maxnreg__(32) m(float* y) { y[threadIdx.x] = 0; }
"""
    text, macros, shifts, tables = preprocess(src)
    assert shifts == () and tables == ()   # no loop macro, no table: every offset kept
    assert len(text) == len(src) + (0 if src.endswith(b"\n") else 1)
    assert text.count(b"\n") == src.count(b"\n")
    p = parse(src)
    names = {f.name: f.kind for f in p.functions}
    assert names["twice"] == "device" and names["k"] == "global" and names["m"] == "global"
    assert not p.errors
    loop_line = next(f for f in p.functions if f.name == "k").line
    assert loop_line == 4


@pytest.mark.parametrize("text,value", [("32", 32), ("(1 << 5) + 1", 33), ("64u", 64), ("1.5f", 1.5),
                                        ("7 / 2", 3), ("-7 / 2", -3), ("TILE * 2", 64), ("sizeof(float)", 4),
                                        ("sizeof(T)", None)])
def test_constant_expressions(text, value):
    assert eval_constant(text, {"TILE": 32}) == value


@pytest.mark.parametrize("text,value", [("total / 256", 4), ("cell * 2", 14), ("full", 3), ("x2f", 6),
                                        ("0x1F", 31), ("0x1Fu", 31), ("0xFFul", 255), ("10ull", 10),
                                        ("1.5e-3f", 0.0015), (".5f", 0.5), ("2.0L", 2.0), ("1L << 20", 1 << 20)])
def test_suffixes_are_taken_off_numbers_only(text, value):
    """`u`, `l`, `f` end numbers, not names: `total` is not `tota`, nor `0x1F` the hex `0x1`."""
    assert eval_constant(text, {"total": 1024, "tota": 99, "cell": 7, "full": 3, "x2": 5, "x2f": 6}) == value


@pytest.mark.parametrize("text,value", [("std::size_t(32)", 32), ("(TILE + std::size_t(1))", 33),
                                        ("static_cast<int>(7) * 2", 14), ("(std::size_t)5 + 1", 6),
                                        ("uint32_t(1) << 31", 1 << 31), ("(unsigned int)9", 9), ("size_t(4) << 2", 16),
                                        ("myfunc(3)", None), ("a.int(3)", None), ("ns::size_t(3)", None)])
def test_casts_are_dropped_from_constants(text, value):
    """C casts and functional ones (`std::size_t(32)`, `static_cast<int>(x)`) leave their operand;
    a call of anything else, or a member or namespace's name, is no cast."""
    assert eval_constant(text, {"TILE": 32}) == value


def test_a_define_inside_a_kernel_body_holds_from_there_on():
    # cuml's cast_and_transpose pads its tile so, with the macro inside the kernel
    src = b"""
#define TILE std::size_t(32)
__global__ void k(float* a) {
#define COLS (TILE + std::size_t(1))   // padded
  __shared__ float s[TILE * COLS];
  s[threadIdx.x * COLS] = a[threadIdx.x];
}
"""
    p = parse(src)
    assert p.constants["COLS"] == 33
    assert p.functions[0].shared[0].dims == (32 * 33,)


def test_incompatible_grammar_is_a_clear_error(monkeypatch):
    import tree_sitter

    def boom(*_a, **_k):
        raise ValueError("Incompatible Language version 15. Must be between 13 and 14")

    parse_mod._language.cache_clear()
    monkeypatch.setattr(tree_sitter, "Language", boom)
    with pytest.raises(ParserUnavailable, match="tree-sitter>=0.25"):
        parse_mod._language()
    monkeypatch.undo()
    parse_mod._language.cache_clear()
    assert parse_mod._language() is not None


def test_deep_nesting_does_not_crash():
    body = "if (threadIdx.x) {" * 3000 + "y[0] = 1;" + "}" * 3000
    src = f"__global__ void k(float* y) {{ {body} }}"
    from analyzer.lint import lint_source
    res = lint_source(src, "deep.cu")
    assert res.path == "deep.cu"  # finished, with or without a note


def test_define_with_a_trailing_comment_is_a_constant():
    """tree-sitter keeps `// ...` and `/* ... */` after a #define's value in the value node."""
    from analyzer.parse import parse

    src = ("#define THREADS 256 // threads per block\n#define TILE 32   /* tile side */\n"
           "#define VEC float4 // 16-byte loads\n"
           "__global__ void k(float* x) { x[threadIdx.x] = THREADS + TILE; }\n")
    p = parse(src, "defs.cu")
    assert p.constants["THREADS"] == 256 and p.constants["TILE"] == 32


def _table(n: int, suffix: str = "f") -> str:
    return ",\n    ".join(", ".join(f"{(i * 9 + j) * 0.001:.4f}{suffix}" for j in range(9)) for i in range(n))


def _shape(node):
    return (node.type, node.start_byte, node.end_byte, tuple(_shape(c) for c in node.children))


TABLE_SRC = f"""// coefficients {{ generated }}
#define N 2700
#define GRID_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__constant__ float c_w[N] = {{
    {_table(300)}
}};
__global__ void k(const float* x, float* y, int n) {{
    float local[18] = {{ {_table(2, "")} }};
    GRID_LOOP(i, n) {{ y[i] = x[i] * c_w[i % N] + local[i % 18]; }}
}}
__constant__ float c_late[2][1350] = {{ {{ {_table(150)} }}, {{ {_table(150)} }} }};
__global__ void k2(float* y) {{ y[threadIdx.x] = c_late[1][threadIdx.x]; }}
"""


def test_file_scope_number_tables_are_left_out_of_the_parse():
    src = TABLE_SRC.encode()
    pre = preprocess(src)
    # the two file-scope tables, not the kernel's local one, whose float literals the rules read;
    # the second lies after a loop macro's expansion, which moved its offsets
    assert len(pre.tables) == 2 and pre.shifts
    for start, end in pre.tables:
        assert pre.text[start - 1:start] == b"{" and pre.text[end:end + 1] == b"}"
        assert not pre.text[start:end].strip()
    assert b"0.0010, 0.0020" in pre.text     # the local table as written
    program = parse(src)
    # the same tree as parsing every byte of the same text
    whole = parse_mod.parser().parse(pre.text)
    assert _shape(program.tree.root_node) == _shape(whole.root_node)
    assert not program.errors
    assert {(g.name, g.dims) for g in program.globals_} == {("c_w", (2700,)), ("c_late", (2, 1350))}
    assert [f.name for f in program.kernels] == ["k", "k2"]


def test_a_table_inside_a_function_or_behind_an_unbalanced_brace_stays():
    local = f"__global__ void k(float* y) {{\n    const float t[2700] = {{ {_table(300)} }};\n    y[0] = t[threadIdx.x];\n}}\n"
    assert preprocess(local.encode()).tables == ()
    # a brace in a string before the table does not make it look nested, nor one left open
    quoted = 'const char* s = "{";\n' + TABLE_SRC
    assert len(preprocess(quoted.encode()).tables) == 2
    opened = "namespace ns {\n" + TABLE_SRC + "}\n"
    assert preprocess(opened.encode()).tables == ()


def test_a_kernel_behind_a_qualifier_macro_after_expanded_loop_macros():
    # the expansions move every later offset of the parsed text: the macro before `k2` is looked
    # for in the text as written at the mapped place
    src = """#define KERNEL __global__
#define GRID_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
__global__ void k1(float* y, int n) {
    GRID_LOOP(i, n) { y[i] = 0; }
    GRID_LOOP(j, n) { y[j] += 1; }
}
KERNEL void k2(float* y) { y[threadIdx.x] = 1; }
"""
    program = parse(src)
    assert program.shifts
    assert {f.name: f.kind for f in program.functions} == {"k1": "global", "k2": "global"}


def test_constant_text_of_code_under_edit_prints_no_python_warning():
    # `1if` in a half-typed #define made ast.parse print "SyntaxWarning: invalid decimal literal"
    # on the linter's stderr
    import warnings

    from analyzer.parse import _parse_constant, eval_constant

    _parse_constant.cache_clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert eval_constant("1if 2", {}) is None and eval_constant("2and 3", {}) is None
        parse(b"#define N 1if\n__global__ void k(float* x) { x[threadIdx.x * N] = 0; }\n")
    assert not [w for w in caught if issubclass(w.category, SyntaxWarning)]


def test_explicit_instantiations_bind_a_template_kernel_the_file_never_launches():
    """`template __global__ void k<...>(...);` is the code a compiler builds from the file: its
    arguments size the block (__launch_bounds__(BLOCK)) and the arrays; not a launch (the reward's
    gate asks for those)."""
    from analyzer.lint import lint_source
    from analyzer.parse import parse

    src = """
    template <int BLOCK, int COLS>
    __global__ void __launch_bounds__(BLOCK) colsum(const float* x, float* y, int rows) {
        __shared__ float part[BLOCK];
        float s = 0.0f;
        for (int r = threadIdx.x; r < rows; r += BLOCK) s += x[r * COLS + blockIdx.x];
        part[threadIdx.x] = s;
        __syncthreads();
        if (threadIdx.x == 0) { for (int i = 1; i < BLOCK; ++i) s += part[i]; y[blockIdx.x] = s; }
    }
    namespace ops {
    extern template __global__ void colsum<64, 4096>(const float*, float*, int);
    }
    template __global__ void ::colsum<512, 1024>(const float*, float*, int);
    template __host__ void ignored<1>(int);
    """
    p = parse(src, "c.cu")
    assert [(i.kernel, i.template_args) for i in p.instantiations] == [
        ("colsum", ("64", "4096")), ("colsum", ("512", "1024")), ("ignored", ("1",))]
    assert p.launches == []
    (k,) = lint_source(src, "c.cu").kernels
    assert k.block == (64, 1, 1) and "explicit instantiation at line 12" in k.launch_source
    assert "BLOCK" not in k.assumed and "COLS" not in k.assumed
    # a launch with template arguments still decides, and a name expression over both
    launched = src + "void go(const float* x, float* y) { colsum<128, 256><<<256, 128>>>(x, y, 1000); }\n"
    (k,) = lint_source(launched, "c.cu").kernels
    assert k.block == (128, 1, 1) and "instantiation" not in k.launch_source
    (k,) = lint_source(src, "c.cu", kernels=["colsum<256, 8>"]).kernels
    assert k.block == (256, 1, 1) and "instantiation" not in k.launch_source


def test_shared_arrays_sized_by_template_arguments():
    """`__shared__ float tile[TILE][TILE + 1]`: the row stride and the bytes come from the template
    arguments of the instance analyzed (they were a 4-byte stride and 0 bytes: the parser's
    constants alone do not size it); with no argument given, the size stays a symbol."""
    from analyzer.lint import LaunchSpec, lint_source

    src = """
    template <int TILE>
    __global__ void transpose_tile(const float* in, float* out, int rows, int cols) {
        __shared__ float tile[TILE][TILE + 1];
        __shared__ float unpadded[TILE][TILE];
        int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
        tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
        unpadded[threadIdx.y][threadIdx.x] = in[y * cols + x];
        __syncthreads();
        out[x * rows + y] = tile[threadIdx.x][threadIdx.y] + unpadded[threadIdx.x][threadIdx.y];
    }"""
    r = lint_source(src, "t.cu", kernels=["transpose_tile<32>"], launches={
        "transpose_tile<32>": LaunchSpec(block=(32, 32, 1), grid=(8, 8, 1), args={"rows": 256, "cols": 256})})
    (ctx,) = r.contexts
    assert ctx.static_shared_bytes == 32 * 33 * 4 + 32 * 32 * 4
    reads = {a.address: e for a, e in zip(ctx.accesses.accesses, ctx.estimates) if a.space == "shared" and a.kind == "load"}
    ways = sorted(e.units / e.ideal_units for e in reads.values())
    assert ways == [1.0, 32.0]       # the padded column read is conflict-free, the other 32-way
    assert [f.code for f in r.findings].count("SM201") == 1
    (ctx,) = lint_source(src, "t.cu").contexts       # no instance: TILE is the block's x extent (blockIdx.x * TILE)
    assert ctx.static_shared_bytes == 32 * 33 * 4 + 32 * 32 * 4 and "TILE = blockDim.x = 32" in ctx.launch_source
    unscaled = src.replace("blockIdx.x * TILE", "blockIdx.x * 32").replace("blockIdx.y * TILE", "blockIdx.y * 32")
    (ctx,) = lint_source(unscaled, "t.cu").contexts  # nothing says: TILE is a symbol, bound like a parameter
    tile = next(a for a in ctx.accesses.accesses if a.array == "tile")
    assert "TILE" in str(tile.address)


def test_a_template_block_parameter_nothing_gives_is_the_default_block_size():
    """`__launch_bounds__(BLOCK)` in a header nothing instantiates: BLOCK is the block's size, so
    it takes the default block size with the block (it was 4096 beside a 256-thread block); a tile
    side (`TILE * TILE`) is not guessed."""
    from analyzer.lint import LintSettings, lint_source

    src = """
    template <int BLOCK>
    __global__ void __launch_bounds__(BLOCK) block_sum(const float* x, float* out, int n) {
        __shared__ float s[BLOCK];
        float acc = 0.0f;
        for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) acc += x[i];
        s[threadIdx.x] = acc;
        __syncthreads();
        if (threadIdx.x == 0) atomicAdd(out, s[0]);
    }
    template <int TILE>
    __global__ void __launch_bounds__(TILE * TILE) tile_copy(const float* x, float* y, int n) {
        y[blockIdx.x * TILE * TILE + threadIdx.y * TILE + threadIdx.x] = x[blockIdx.x * TILE * TILE + threadIdx.x];
    }"""
    r = lint_source(src, "h.cuh", settings=LintSettings(block_size=128))
    k, t = r.kernels
    assert k.block == (128, 1, 1) and "BLOCK = 128" in k.launch_source and "BLOCK" not in k.assumed
    assert r.contexts[0].static_shared_bytes == 128 * 4
    assert t.launch_source == "the default block size 128" and "TILE" in t.assumed


def test_a_template_parameter_scaling_a_block_index_is_the_block_extent():
    """`blockIdx.x * BLOCK + threadIdx.x` in a template nothing instantiates: BLOCK is the block's
    x extent (it was 4096: with the guard `i < n` at n = 4096 the sampled blocks ran nothing and
    the uncoalesced load below had no estimate and no finding). A 2-D tile over x and y takes the
    larger extent (32 in a 32x8 block: NVIDIA's transpose reads rows in a loop); a share that is
    a product or quotient (`TILE * TILE`, `n / PARTS`) is not guessed; arguments a launch gives win."""
    from analyzer.lint import LintSettings, lint_source

    src = """
    template <int BLOCK>
    __global__ void strided(const float* in, float* out, int n) {
        int i = blockIdx.x * BLOCK + threadIdx.x;
        if (i < n) out[i] = 2.0f * in[i * 4];
    }
    template <int TILE>
    __global__ void copy_t(const float* in, float* out, int rows, int cols) {
        int x = blockIdx.x * TILE + threadIdx.x;
        int y = TILE * blockIdx.y + threadIdx.y;
        if (x < cols && y < rows) out[y * cols + x] = in[x * rows + y];
    }
    template <int TILE, int PARTS>
    __global__ void products(const float* in, float* out, int n) {
        int i = blockIdx.x * TILE * TILE + threadIdx.x;
        int j = n / PARTS * blockIdx.y + threadIdx.x;
        out[i] = in[j];
    }"""
    r = lint_source(src, "h.cuh", settings=LintSettings(block_size=128))
    s, c, p = r.kernels
    assert s.block == (128, 1, 1) and "BLOCK = blockDim.x = 128" in s.launch_source and "BLOCK" not in s.assumed
    assert s.global_load_sectors_per_request == 16.0 and s.global_store_sectors_per_request == 4.0
    assert c.block == (32, 4, 1) and "TILE = blockDim.x = 32" in c.launch_source
    assert c.global_load_sectors_per_request == 32.0     # in[x * rows + y]: a column per warp
    assert [(f.code, f.kernel) for f in r.findings if f.code == "GM101"] == [("GM101", "strided"), ("GM101", "copy_t")]
    assert p.launch_source == "the default block size 128" and {"TILE", "PARTS"} <= set(p.assumed)
    launched = src + "\nvoid run(const float* a, float* b) { strided<64><<<16, 64>>>(a, b, 1024); }\n"
    k = lint_source(launched, "h.cu").kernels[0]
    assert k.block == (64, 1, 1) and "blockIdx" not in k.launch_source


def test_the_step_of_a_block_stride_loop_is_the_block_size():
    """`for (c = threadIdx.x; c < cols; c += BLOCK)` with BLOCK known (an explicit instantiation,
    a #define, a literal; through `int tid = threadIdx.x`) and no launch: the block is BLOCK wide
    (it was the default 256 beside `softmax_block<128>`, twice the threads the loop was written
    for). Loops with different steps, a runtime step, blockDim.x, or a kernel that uses threadIdx.y
    give nothing; a launch or __launch_bounds__ wins."""
    from analyzer.lint import lint_source

    src = """
    #define THREADS 64
    template <int BLOCK>
    __global__ void rowmax(const float* x, float* out, int cols) {
        int tid = threadIdx.x;
        float m = -1e30f;
        for (int c = tid; c < cols; c += BLOCK) m = fmaxf(m, x[blockIdx.x * cols + c]);
        if (tid == 0) out[blockIdx.x] = m;
    }
    template __global__ void rowmax<128>(const float*, float*, int);
    __global__ void by_define(float* x, int n) {
        for (unsigned i = threadIdx.x; i < n; i += THREADS) x[i] = 0.0f;
    }
    __global__ void two_steps(float* x, int n) {
        for (int i = threadIdx.x; i < n; i += 64) x[i] = 0.0f;
        for (int i = threadIdx.x; i < n; i += 128) x[i] = 1.0f;
    }
    __global__ void runtime_step(float* x, int n, int s) {
        for (int i = threadIdx.x; i < n; i += s) x[i] = 0.0f;
    }
    __global__ void two_d(float* x, int n) {
        for (int i = threadIdx.x; i < n; i += 64) x[i + threadIdx.y] = 0.0f;
    }"""
    r = {k.name: k for k in lint_source(src, "s.cu").kernels}
    assert r["rowmax"].block == (128, 1, 1) and r["rowmax"].launch_source.startswith(
        "BLOCK = 128, the step of its block-stride loop")
    assert r["by_define"].block == (64, 1, 1)
    for name in ("two_steps", "runtime_step"):
        assert r[name].block == (256, 1, 1) and r[name].launch_source == "the default block size 256"
    assert r["two_d"].block == (32, 8, 1)
    launched = src + "\nvoid run(float* x) { by_define<<<4, 32>>>(x, 100); }\n"
    assert {k.name: k for k in lint_source(launched, "s.cu").kernels}["by_define"].block == (32, 1, 1)


def test_template_arguments_from_host_code_constants():
    """`k<BM, BN><<<grid, (BM * BN) / TM>>>` with `const int BM = 64, ...;` in the host function:
    the launch's template arguments are the values (they stayed names, out of scope where the
    kernel is analyzed, so BM..TM were taken as 4096 while the block was right), and a name
    expression built from them compiles."""
    from analyzer.lint import _name_expressions, lint_source

    src = """
    template <int BM, int TM>
    __global__ void __launch_bounds__(BM / TM) rows(const float* a, float* c, int n) {
        __shared__ float t[BM];
        t[threadIdx.x] = a[blockIdx.x * BM + threadIdx.x];
        __syncthreads();
        for (int r = 0; r < TM; ++r) c[blockIdx.x * BM + threadIdx.x * TM + r] = t[threadIdx.x];
    }
    template <typename T, int N>
    __global__ void typed(const T* a, T* c) { c[threadIdx.x] = a[threadIdx.x * N]; }
    void run(const float* a, float* c, int n) {
        const int BM = 64, TM = 4;
        rows<BM, TM><<<n / BM, BM / TM>>>(a, c, n);
        constexpr int STRIDE = 2;
        typed<float, STRIDE><<<1, 32>>>(a, c);
    }"""
    r = lint_source(src, "h.cu")
    p = r.contexts[0].program
    assert [l.template_args for l in p.launches] == [("64", "4"), ("float", "2")]
    assert _name_expressions(p, None) == ("rows<64, 4>", "typed<float, 2>")
    k, t = r.kernels
    assert k.block == (16, 1, 1) and not {"BM", "TM"} & set(k.assumed)
    assert r.contexts[0].static_shared_bytes == 64 * 4
    assert t.global_load_sectors_per_request == 8.0     # a[threadIdx.x * 2]: 256 bytes a warp


def test_constant_launch_arguments_bind_scalar_parameters():
    """`pool<<<g, 512>>>(count, x, 28, 3, 2, y)` (Caffe's style) or host code's constants: the
    scalar parameters take the launch's values (they were 4096 each, and a 3x3 window of stride 2
    read 4096x4096 elements a thread); values the caller gives win; a call whose arguments do
    not line up with the parameters gives none."""
    from analyzer.lint import LaunchSpec, lint_source

    src = """
    __global__ void pool(int count, const float* x, int width, int window, int stride, float* y) {
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += blockDim.x * gridDim.x) {
            float m = -1e30f;
            for (int k = 0; k < window; ++k) m = fmaxf(m, x[i * stride + k]);
            y[i] = m;
        }
    }
    __global__ void packed(const float* x, float* y, int n) { y[threadIdx.x] = x[threadIdx.x * n]; }
    void run(int count, const float* x, float* y) {
        const int W = 56;
        pool<<<(count + 511) / 512, 512>>>(count, x, W / 2, 3, 2, y);
        packed<<<1, 32>>>(x, y);
    }"""
    r = lint_source(src, "p.cu")
    pool, packed = r.contexts
    assert pool.launch.args == {"width": 28, "window": 3, "stride": 2}
    assert pool.launch_source == "the launch at line 12 with 3 constant arguments"
    assert r.kernels[0].assumed == ("count",)
    (load,) = [e for a, e in zip(pool.accesses.accesses, pool.estimates) if a.kind == "load"]
    # x[i * 2 + k]: 256 bytes a warp, 8 sectors (9 where k shifts them across one), ideal 4
    assert 8.0 <= load.units / load.requests <= 9.0 and load.ideal_units / load.requests == 4.0
    assert packed.launch.args == {} and "n" in r.kernels[1].assumed
    given = lint_source(src, "p.cu", launches={"pool": LaunchSpec(args={"stride": 1})}).contexts[0]
    assert given.launch.args == {"stride": 1, "width": 28, "window": 3}


def test_launch_api_calls_are_launch_sites():
    """`cudaLaunchKernel((void*)k, grid, block, args, smem, stream)` and the cooperative launch
    give the block as `k<<<grid, block, smem>>>` does (the kernel was linted with the default
    32x8 block beside a 16x16 launch), with template arguments and host constants."""
    from analyzer.lint import lint_source
    from analyzer.parse import parse

    src = """
    __global__ void scale2d(const float* in, float* out, int w, int h) {
        int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
        if (x < w && y < h) out[x * h + y] = 2.f * in[y * w + x];
    }
    template <int BLOCK, int ITEMS>
    __global__ void sum(const float* in, float* out) { extern __shared__ float s[]; s[threadIdx.x] = in[threadIdx.x]; }
    void run(const float* in, float* out, int w, int h, cudaStream_t st) {
        dim3 block(16, 16);
        dim3 grid((w + 15) / 16, (h + 15) / 16);
        void* args[] = {&in, &out, &w, &h};
        cudaLaunchKernel((void*)scale2d, grid, block, args, 0, st);
        const int B = 128;
        cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(&sum<B, 4>), dim3(64), dim3(B), args, B * sizeof(float), st);
        cudaLaunchKernel((const void*)sum<256, 2>, 8, 256, args);
    }"""
    launches = parse(src, "l.cu").launches
    assert [(l.kernel, l.template_args, l.grid, l.block, l.smem) for l in launches] == [
        ("scale2d", (), None, (16, 16, 1), 0),
        ("sum", ("128", "4"), (64, 1, 1), (128, 1, 1), 512),
        ("sum", ("256", "2"), (8, 1, 1), (256, 1, 1), 0)]
    k = lint_source(src, "l.cu").kernels[0]
    assert k.block == (16, 16, 1) and k.launch_source == "the launch at line 12"
    assert k.global_store_sectors_per_request == 16.0      # out[x * h + y]: 16 columns of 2 rows


def test_sizeof_of_a_scalar_type_is_a_constant():
    """`k<<<g, b, (256 + 6) * sizeof(float)>>>`: the launch's shared bytes (they were unknown)."""
    from analyzer.parse import eval_constant, parse

    assert eval_constant("(T + 6) * sizeof(float)", {"T": 256}) == 1048
    assert eval_constant("sizeof(unsigned int) + sizeof(float*)", {}) == 12
    assert eval_constant("16 / sizeof(T)", {}) is None          # a type nobody sized
    src = "__global__ void k(float* x) { extern __shared__ float s[]; s[threadIdx.x] = x[threadIdx.x]; }\n" \
          "void run(float* x) { k<<<1, 256, (256 + 6) * sizeof(float)>>>(x); }\n"
    assert parse(src, "s.cu").launches[0].smem == 1048


def test_launch_edge_cases_keep_their_meaning():
    """A shift inside a launch API's template arguments is not a bracket; a constant argument no
    size can have (`1 << 70`, `1e308 * 4`) binds nothing."""
    from analyzer.lint import lint_source
    from analyzer.parse import parse

    src = """
    template <int A, typename T> __global__ void t(T* x) { x[blockIdx.x * A + threadIdx.x] = 0; }
    __global__ void k(float* x, long n) { x[threadIdx.x] = n; }
    void run(float* x) {
        cudaLaunchKernel((const void*)&t<(1 << 3), float>, dim3(4), dim3(8), nullptr, 0, 0);
        k<<<1, 32>>>(x, 1 << 70);
    }"""
    t, k = parse(src, "e.cu").launches
    assert t.template_args == ("(1 << 3)", "float")
    r = lint_source(src, "e.cu")
    assert r.contexts[0].accesses.constants["A"] == 8 and r.contexts[1].launch.args == {}


def test_hopper_kernel_attributes_leave_the_kernel_whole():
    """CUDA 12's kernel attributes are outside the grammar: `__cluster_dims__(...)` dropped the whole
    kernel (a missing `;`), `__no_cluster__` was read as the kernel's name, and a third
    `__launch_bounds__` argument (blocks per cluster) lost the second. The lint reads these kernels
    as it reads them without the attribute."""
    body = """(float *a, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) a[i * 32] += 1.0f;
    }
    """
    src = ("__global__ void __cluster_dims__(2, 1, 1) clustered" + body +
           "__global__ void __cluster_dims__(4) clustered_x" + body +
           "__global__ void __no_cluster__ unclustered" + body +
           "__global__ void __launch_bounds__(256, 2, 4) bounded" + body +
           "template <int B>\n__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(B) both" + body +
           "template __global__ void both<128>(float *, int);\n")
    p = parse(src)
    assert [k.name for k in p.kernels] == ["clustered", "clustered_x", "unclustered", "bounded", "both"]
    assert not p.errors
    lb = p.function("bounded").launch_bounds
    assert (lb.max_threads, lb.min_blocks, lb.exprs) == (256, 2, ("256", "2", "4"))
    res = lint_source(src, "hopper.cu", rules={"GM101": all_rules()["GM101"]})
    assert sorted(f.kernel for f in res.findings) == ["both", "bounded", "clustered", "clustered_x", "unclustered"]


@pytest.mark.parametrize("defines, use", [
    # a body the pre-pass blanks whole, then the next line: in the grammar, the define's body
    ('#define UNROLL _Pragma("unroll")\n', "UNROLL\n  "),
    ('#define MY_PRAGMA_UNROLL _Pragma("unroll")\n', "MY_PRAGMA_UNROLL\n  "),   # its name is no use to blank
    ("#define ALIGN16 __align__(16)\nstruct ALIGN16 V { float x, y, z, w; };\n", ""),
    # a macro for the attribute, empty on older archs: its uses stand for nothing
    ("#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\n#define CLUSTER(x, y, z) __cluster_dims__(x, y, z)\n"
     "#else\n#define CLUSTER(x, y, z)\n#endif\n", "CLUSTER(2, 1, 1) "),
])
def test_a_macro_of_attributes_alone_keeps_the_kernel_after_it(defines, use):
    loop = "UNROLL" in use     # a statement macro before the loop
    src = defines + ("__global__ void " + (use if "CLUSTER" in use else "") + "k(float *a, int n) {\n  "
                     + (use if loop else "") + "for (int j = 0; j < 4; ++j) a[(threadIdx.x * 4 + j) * 32] = 1.0f;\n}\n")
    p = parse(src)
    assert [k.name for k in p.kernels] == ["k"] and not p.errors
    (f,) = lint_source(src, "m.cu", rules={"GM102": all_rules()["GM102"]}).findings
    assert f.estimate["sectors_per_request"] == 32.0


def test_reserved_names_defined_away_are_not_blanked():
    """`#define __noinline__ __attribute__((noinline))` empties a define too, but a reserved name's
    uses are the language's own: they stay."""
    src = ("#define __noinline__ __attribute__((noinline))\n"
           "__device__ __noinline__ float twice(float x) { return 2.0f * x; }\n"
           "__global__ void k(float *a) { a[threadIdx.x] = twice(a[threadIdx.x]); }\n")
    p = parse(src)
    assert [(f.name, f.kind) for f in p.functions] == [("twice", "device"), ("k", "global")]
    assert b"__noinline__ float" in preprocess(src.encode()).text


def test_cpp_attributes_on_statements_keep_their_meaning():
    """`if (i >= n) [[unlikely]] return;` is an early exit: the grammar wraps the return in the
    attribute, which hid it from the bounds check (GM104 fired). Attributes are left out; offsets keep."""
    src = ("__global__ void k(const float *in, float *out, int n) {\n"
           "  [[maybe_unused]] int spare = 0;\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i >= n) [[unlikely]] return;\n"
           "  out[i * 32] = in[i];\n"
           "}\n")
    rules = {code: all_rules()[code] for code in ("GM102", "GM104")}
    (f,) = lint_source(src, "a.cu", rules=rules).findings
    assert (f.code, f.line, f.col) == ("GM102", 5, 3)
    assert len(preprocess(src.encode()).text) == len(src)


def test_cuda12_launches_with_a_config_are_launch_sites():
    """`cudaLaunchKernelEx(&config, k, args...)` (a cluster launch): the block is the config's, as
    the host code sets it before the call or initializes it (the kernel was linted with the default
    block beside a 128-thread launch)."""
    src = """
    __global__ void __cluster_dims__(2, 1, 1) scale(const float* in, float* out, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i * 2] = 2.f * in[i];
    }
    template <int B>
    __global__ void fill(float* out) { out[blockIdx.x * B + threadIdx.y * 64 + threadIdx.x] = 1.f; }
    void run(const float* in, float* out, int n, cudaStream_t st) {
        cudaLaunchConfig_t config = {0};
        config.gridDim = dim3((n + 127) / 128);
        config.blockDim = dim3(128);
        config.dynamicSmemBytes = 1024;
        config.stream = st;
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = 2;
        config.attrs = attr;
        config.numAttrs = 1;
        cudaLaunchKernelEx(&config, scale, in, out, n);
        cudaLaunchConfig_t c2 = {dim3(4), dim3(64, 2), 0, st, nullptr, 0};
        cudaLaunchKernelEx(&c2, fill<128>, out);
        cudaLaunchConfig_t c3 = {.gridDim = dim3(2), .blockDim = dim3(32, 4)};
        cudaLaunchKernelEx(&c3, fill<64>, out);
    }"""
    launches = parse(src, "x.cu").launches
    assert [(l.kernel, l.template_args, l.grid, l.block, l.smem) for l in launches] == [
        ("scale", (), None, (128, 1, 1), 1024),
        ("fill", ("128",), (4, 1, 1), (64, 2, 1), 0),
        ("fill", ("64",), (2, 1, 1), (32, 4, 1), 0)]
    k = lint_source(src, "x.cu").kernels[0]
    assert k.block == (128, 1, 1) and k.launch_source == "the launch at line 19"



def test_hip_launches_are_launch_sites():
    """ROCm ports of CUDA solutions launch with `hipLaunchKernelGGL(k, grid, block, smem, stream,
    args...)`, a template kernel behind `HIP_KERNEL_NAME(...)`, or hipLaunchKernel (cudaLaunchKernel's
    twin): each takes its launch's shape, as a `<<<...>>>` site would give it."""
    src = """
    template <int B>
    __global__ void scale(const float* x, float* y, int n) {
        int i = blockIdx.x * B + threadIdx.x;
        if (i < n) y[i] = 2.0f * x[i];
    }
    __global__ void stage(const float* x, float* y) {
        extern __shared__ float s[];
        s[threadIdx.x] = x[threadIdx.x];
        __syncthreads();
        y[threadIdx.x] = s[threadIdx.y * 32 + threadIdx.x];
    }
    void run(const float* x, float* y, int n, void** args) {
        dim3 block(128);
        hipLaunchKernelGGL(HIP_KERNEL_NAME(scale<128>), dim3((n + 127) / 128), block, 0, 0, x, y, n);
        hipLaunchKernelGGL(stage, dim3(16), dim3(32, 2), 64 * sizeof(float), 0, x, y);
        hipLaunchKernel((const void*)stage, dim3(8), dim3(64), args, 512, 0);
    }"""
    launches = parse(src, "x.hip").launches
    assert [(l.kernel, l.template_args, l.grid, l.block, l.smem, l.line) for l in launches] == [
        ("scale", ("128",), None, (128, 1, 1), 0, 15),
        ("stage", (), (16, 1, 1), (32, 2, 1), 256, 16),
        ("stage", (), (8, 1, 1), (64, 1, 1), 512, 17)]
    assert lint_source(src, "x.hip").kernels[0].launch_source == "the launch at line 15"


@pytest.mark.parametrize("declaration", [
    "dim3 block(32, 8);", "dim3 block{32, 8};", "dim3 block = {32, 8};", "dim3 block = dim3(32, 8);",
    "const dim3 block = dim3(32, 8, 1);", "auto block = dim3(32, 8);"])
def test_every_way_of_writing_a_dim3_local_gives_the_block(declaration):
    """Only `dim3 block(32, 8);` was read: the brace and assignment forms (common in generated
    code) left the launch's block unknown, and the kernel took the default."""
    src = ("__global__ void k(float* o, int W) {\n"
           "  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
           "  o[x * W + y] = 1.f;\n}\n"
           "void f(float* o, int W) {\n  " + declaration + "\n  k<<<dim3(8, 8), block>>>(o, W);\n}\n")
    (launch,) = parse(src).launches
    assert launch.block == (32, 8, 1)
    assert lint_source(src, "d.cu").kernels[0].launch_source == "the launch at line 7"


def test_a_qualified_template_kernel_launch_names_its_kernel():
    """`ns::k<128><<<...>>>` was a launch of a kernel named `k<128>`, so no kernel matched it: the
    kernel took the default block and no template argument (vLLM's fp8 conversion)."""
    src = ("namespace ns {\ntemplate <int B> __global__ void k(float* o) { o[blockIdx.x * B + threadIdx.x] = 1.f; }\n}\n"
           "void f(float* o) {\n  ns::k<128><<<4, 128>>>(o);\n  ::ns::k<64>\n      <<<4, 64>>>(o);\n}\n")
    assert [(l.kernel, l.template_args, l.block) for l in parse(src).launches] == [
        ("k", ("128",), (128, 1, 1)), ("k", ("64",), (64, 1, 1))]
    (k,) = lint_source(src, "q.cu").kernels
    assert k.block == (128, 1, 1) and k.launch_source == "the launch at line 5"


def test_an_explicit_specialization_takes_its_launch():
    """`template <> __global__ void k<float>(...)` is the kernel `k<float>` launches
    (`k<float><<<n / 128, 128>>>`): it took the default block."""
    src = ("template <typename T> __global__ void k(T* a, int n);\n"
           "template <> __global__ void k<float>(float* a, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) a[i * 64] = 0.f;\n}\n"
           "void f(float* a, int n) { k<float><<<(n + 127) / 128, 128>>>(a, n); }\n")
    (k,) = lint_source(src, "s.cu").kernels
    assert (k.name, k.block, k.launch_source) == ("k<float>", (128, 1, 1), "the launch at line 6")


def test_variadic_macros_are_expanded():
    """`#define LAUNCH(k, n, ...) k<<<(n + 63) / 64, 64>>>(__VA_ARGS__)` and an index macro with
    `...`: variadic macros were left unexpanded (the launch unseen: the default block)."""
    src = ("#define LAUNCH(kern, n, ...) kern<<<((n) + 63) / 64, 64>>>(__VA_ARGS__)\n"
           "#define AT(p, ...) (p)[__VA_ARGS__]\n"
           "__global__ void k(float* o, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) AT(o, i * 32) = 0.f;\n}\n"
           "void go(float* o, int n) {\n  LAUNCH(k, n, o, n);\n}\n")
    (k,) = lint_source(src, "v.cu").kernels
    assert (k.block, k.launch_source) == ((64, 1, 1), "the launch at line 8")
    assert k.global_store_sectors_per_request == 32.0


def test_a_name_expression_picks_an_explicit_specialization():
    """`--kernel k<float>` (the reward's and predict's kernel name) is the specialization where the
    file has one (it was not found at all), `k<int>` the template."""
    from rewardmodel.features import extract

    src = ("template <typename T> __global__ void k(T* a, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) a[i] = 0;\n}\n"
           "template <> __global__ void k<float>(float* a, int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) a[i * 64] = 0.f;\n}\n")
    (k,) = lint_source(src, "s.cu", kernels=["k<float>"]).kernels
    assert k.name == "k<float>" and k.global_store_sectors_per_request == 32.0
    (k,) = lint_source(src, "s.cu", kernels=["k<int>"]).kernels
    assert k.name == "k" and k.global_store_sectors_per_request == 4.0
    feat = extract(src, "k<float>", grid=(32, 1, 1), block=(128, 1, 1), args={"n": 4096})
    assert feat.values["n_GM102"] == 1


def test_a_launch_with_its_chevrons_apart_is_a_launch_site():
    # zfp writes `cudaDecode1<Scalar> << < grid_size, block_size >> > (...)`, which nvcc reads
    src = "__global__ void fill(float *p) { p[threadIdx.x] = 0.0f; }\nvoid go(float *p, int b) {\n  fill << < b, 48 >> > (p);\n}\n"
    (l,) = parse(src).launches
    assert (l.kernel, l.block, l.line) == ("fill", (48, 1, 1), 3)
    assert len(preprocess(src.encode()).text) == len(src)


def test_a_launch_local_declared_again_elsewhere_is_another_variable():
    """`int threads = ...;` declared in two host functions (a test driver's main and its helper), or in
    two blocks of one: each launch takes its own declaration's value (before, a name the file assigned
    twice anywhere was no constant for any launch). Assigned again in its scope, it is none."""
    src = """
__global__ void k(float* y) { y[blockIdx.x * blockDim.x + threadIdx.x] = 0.f; }
void small(float* y) { int threads = 128; k<<<8, threads>>>(y); }
void big(float* y) {
    { int threads = 512; k<<<8, threads>>>(y); }
    for (int r = 0; r < 2; ++r) { int threads = 64; k<<<8, threads>>>(y); }
}
void tuned(float* y, bool fast) {
    int threads = 256;
    if (fast) { threads = 1024; }
    k<<<8, threads>>>(y);
}
"""
    blocks = [l.block for l in parse(src).launches]
    assert blocks == [(128, 1, 1), (512, 1, 1), (64, 1, 1), None]


@pytest.mark.parametrize("declaration, name, pointer, dims", [
    ("const float (*a)[W]", "a", 1, ("W",)), ("float (*c)[W][8]", "c", 1, ("W", "8")),
    ("float a[][W]", "a", 1, ("W",)), ("float a[4][8]", "a", 1, ("8",)), ("float a[]", "a", 1, ()),
    ("float* a[4]", "a", 2, ()), ("float** a", "a", 2, ()), ("float *(*d)[4]", "d", 3, ()),
    ("const Params& p", "p", 0, ()), ("float*& q", "q", 1, ()), ("float (&t)[4]", "t", 1, ()),
])
def test_parameter_declarators(declaration, name, pointer, dims):
    """A pointer to rows (`float (*a)[W]`) was named `(*a)` and a reference parameter `arg0`: the
    kernel's accesses through them were lost, and a device function's reference was never bound."""
    (prm,) = parse(f"__device__ void f({declaration}) {{}}").functions[0].params
    assert (prm.name, prm.pointer, prm.dims) == (name, pointer, dims)


def test_a_launch_through_a_local_that_holds_the_kernel():
    """`auto kern = k<128>; kern<<<grid, 128>>>(...)` (a dispatch that picks an instance first), and a
    function pointer `void (*f)(float*) = &k;`: the launch is the kernel's (it was a launch of `kern`)."""
    src = """
template <int BLOCK> __global__ void k(float* y) { y[blockIdx.x * BLOCK + threadIdx.x] = 0.f; }
__global__ void plain(float* y) { y[threadIdx.x] = 0.f; }
void run(float* y, bool big) {
    auto kern = big ? k<256> : k<128>;
    auto small = k<64>;
    small<<<8, 64>>>(y);
    void (*f)(float*) = &plain;
    f<<<1, 32>>>(y);
    kern<<<8, 128>>>(y);
}
void other(float* y, void (*small)(float*)) { small<<<2, 16>>>(y); }
"""
    launches = [(l.kernel, l.template_args, l.block) for l in parse(src).launches]
    assert launches == [("k", ("64",), (64, 1, 1)), ("plain", (), (32, 1, 1)), ("kern", (), (128, 1, 1)),
                        ("small", (), (16, 1, 1))]


def test_syntax_errors_inside_kernel_bodies_are_parse_errors():
    """The walk that builds the Program does not enter kernel bodies; their errors (a missing `;`,
    an unclosed loop header) are found through tree-sitter's has_error and reported, not read
    silently as whatever the parser recovered."""
    good = b"""__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < 4; ++j) y[i] += x[i + j];
    y[i] *= 2.0f;
}
__device__ float twice(float v) { return 2.0f * v; }
"""
    assert parse(good).errors == []
    semi = parse(good.replace(b"y[i] *= 2.0f;", b"y[i] *= 2.0f"))
    assert [(e.line, e.message) for e in semi.errors] == [(4, "missing ;")]
    loop = parse(good.replace(b"++j)", b"++j"))
    assert loop.errors and loop.errors[0].line == 3 and loop.errors[0].message == "unparsed code"
    helper = parse(good.replace(b"return 2.0f * v;", b"return 2.0f * v"))
    assert [(e.line, e.message) for e in helper.errors] == [(6, "missing ;")]


def test_prepass_keeps_a_kernel_macro_that_names_a_number():
    """A word ending in _KERNEL is blanked as a qualifier macro from a header (`MY_KERNEL void k(...)`)
    unless the file defines it as something else: `#define HASHES_PER_KERNEL 128UL` is a value."""
    src = b"""#define HASHES_PER_KERNEL 128UL
__global__ void k(unsigned* y) {
    unsigned idx = (blockIdx.x * blockDim.x + threadIdx.x) * HASHES_PER_KERNEL;
    y[idx] = 1;
}
"""
    p = parse(src)
    assert p.errors == [] and b"HASHES_PER_KERNEL;" in preprocess(src).text
    hidden = parse(b"#define MY_KERNEL __global__\nMY_KERNEL void k(float* y) { y[threadIdx.x] = 0; }\n")
    assert [f.kind for f in hidden.functions] == ["global"]
