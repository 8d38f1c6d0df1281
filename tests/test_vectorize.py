"""The compiler's merging of shared accesses into LDS.64/LDS.128 (analyzer/vectorize.py), against
ptxas's SASS.

Each case is a kernel body and the widths (bytes) of the shared loads (LDS) and stores (STS) in
the SASS that `nvcc -arch=sm_90 -cubin` (CUDA 13) makes of it, read with nvdisasm.
test_model_widths: the analyzer's accesses have those widths. test_sass_widths (needs nvcc and
nvdisasm, which the test extra installs: nvidia-cuda-nvdisasm): the compiler still does what the
cases say. LIMITS are cases the analyzer does not model; their SASS is checked the same way, and
the analyzer's answer is pinned, so a change in either shows.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from analyzer import vectorize as V
from analyzer.access import analyze, unroll_pragmas
from analyzer.lint import lint_source
from analyzer.parse import parse

_SH = "    __shared__ float sh[1024];"


def _kernel(name: str, decl: str, body: str) -> str:
    # the copy loop's store is one scalar STS in every case
    return (f'extern "C" __global__ void k_{name}(const float* __restrict__ in, float* __restrict__ out, int n, int s)\n'
            "{\n" + decl + "\n    int t = threadIdx.x;\n"
            "    for (int i = t; i < 1024; i += blockDim.x) ((float*)sh)[i] = in[i];\n"
            "    __syncthreads();\n    float acc = 0.f;\n" + body +
            "\n    out[blockIdx.x * blockDim.x + t] = acc;\n}\n")


def _loop4(expr: str, pragma: str = "#pragma unroll\n") -> str:
    return pragma + "    for (int j = 0; j < 4; ++j) " + expr


L, S = "LDS", "STS"
# name -> (declaration, body, {(LDS|STS, bytes)})
CASES = {
    "pragma4": (_SH, _loop4("acc += sh[t * 4 + j];"), {(L, 16), (S, 4)}),
    "nopragma4": (_SH, _loop4("acc += sh[t * 4 + j];", ""), {(L, 16), (S, 4)}),
    "nopragma64": (_SH, "    for (int j = 0; j < 64; ++j) acc += sh[(t & 7) * 64 + j];", {(L, 16), (S, 4)}),
    "pragma2": (_SH, "#pragma unroll\n    for (int j = 0; j < 2; ++j) acc += sh[t * 2 + j];", {(L, 8), (S, 4)}),
    "pragma_big": (_SH, "#pragma unroll\n    for (int j = 0; j < 256; ++j) acc += sh[(t & 3) * 256 + j];",
                   {(L, 16), (S, 4)}),
    "unroll2_of_8": (_SH, "#pragma unroll 2\n    for (int j = 0; j < 8; ++j) acc += sh[t * 8 + j];", {(L, 8), (S, 4)}),
    "nounroll": (_SH, _loop4("acc += sh[t * 4 + j];", "#pragma unroll 1\n"), {(L, 4), (S, 4)}),
    "le": (_SH, "#pragma unroll\n    for (int j = 0; j <= 3; ++j) acc += sh[t * 4 + j];", {(L, 16), (S, 4)}),
    "downward": (_SH, "#pragma unroll\n    for (int j = 3; j >= 0; --j) acc += sh[t * 4 + j];", {(L, 16), (S, 4)}),
    "downward_gt": (_SH, "    for (int j = 8; j > 0; j -= 1) acc += sh[t * 8 + j - 1];", {(L, 16), (S, 4)}),
    # alignment: what the compiler can prove of the first address
    "stride3": (_SH, _loop4("acc += sh[t * 3 + j];"), {(L, 4), (S, 4)}),
    "stride6": (_SH, _loop4("acc += sh[t * 6 + j];"), {(L, 8), (S, 4)}),
    "offset2": (_SH, _loop4("acc += sh[t * 4 + 2 + j];"), {(L, 8), (S, 4)}),
    "runtime_stride": (_SH, _loop4("acc += sh[t * s + j];"), {(L, 4), (S, 4)}),
    "param_times4": (_SH, _loop4("acc += sh[(n * 4) * t + j];"), {(L, 16), (S, 4)}),
    "mod": (_SH, _loop4("acc += sh[(t % 16) * 4 + j];"), {(L, 16), (S, 4)}),
    "div": (_SH, _loop4("acc += sh[(t / 16) * 4 + j];"), {(L, 16), (S, 4)}),
    "shift": (_SH, _loop4("acc += sh[(t << 2) + j];"), {(L, 16), (S, 4)}),
    "xor": (_SH, _loop4("acc += sh[((t ^ 3) * 4) + j];"), {(L, 16), (S, 4)}),
    "blockdim": (_SH, _loop4("acc += sh[threadIdx.y * blockDim.x * 4 + t * 4 + j];"), {(L, 16), (S, 4)}),
    "outer_runtime_unaligned": (_SH, "    for (int r = 0; r < n; ++r) {\n" + _loop4("acc += sh[t * 4 + r + j];") + "\n    }",
                                {(L, 4), (S, 4)}),
    "extern": ('    extern __shared__ float sh[];', _loop4("acc += sh[t * 4 + j];"), {(L, 16), (S, 4)}),
    "rows32": ("    __shared__ float sh[32][32];", _loop4("acc += sh[t % 32][(t / 32) * 4 + j];"), {(L, 16), (S, 4)}),
    "rows33": ("    __shared__ float sh[32][33];", _loop4("acc += sh[t % 32][(t / 32) * 4 + j];"), {(L, 4), (S, 4)}),
    "double2": ("    __shared__ double sh[512];", "#pragma unroll\n    for (int j = 0; j < 2; ++j) acc += (float)sh[t * 2 + j];",
                {(L, 16), (S, 4)}),
    # one basic block: what splits it
    "guard_inside": (_SH, _loop4("if (t + j < n) acc += sh[t * 4 + j];"), {(L, 4), (S, 4)}),
    "invariant_guard_inside": (_SH, _loop4("if (t < n) acc += sh[t * 4 + j];"), {(L, 4), (S, 4)}),
    "guard_outside": (_SH, "    if (t < n) {\n" + _loop4("acc += sh[t * 4 + j];") + "\n    }", {(L, 16), (S, 4)}),
    "constant_guard": (_SH, _loop4("if (j < 3) acc += sh[t * 4 + j];"), {(L, 16), (S, 4)}),
    "ternary_load": (_SH, _loop4("acc += (t < n) ? sh[t * 4 + j] : 0.f;"), {(L, 4), (S, 4)}),
    "barrier_inside": (_SH, _loop4("{ acc += sh[t * 4 + j]; __syncthreads(); }"), {(L, 4), (S, 4)}),
    "store_inside": (_SH, _loop4("{ acc += sh[t * 4 + j]; sh[t * 4 + j] = 0.f; }"), {(L, 4), (S, 4)}),
    "sinf": (_SH, _loop4("{ float v = sh[t * 4 + j]; acc += sinf(v); }"), {(L, 4), (S, 4)}),
    "sqrtf": (_SH, _loop4("{ float v = sh[t * 4 + j]; acc += sqrtf(v); }"), {(L, 4), (S, 4)}),
    "double_division": (_SH, _loop4("{ float v = sh[t * 4 + j]; acc += (float)((double)v / (double)acc); }"),
                        {(L, 4), (S, 4)}),
    "expf": (_SH, _loop4("{ float v = sh[t * 4 + j]; acc += expf(v); }"), {(L, 16), (S, 4)}),
    "integer_division": (_SH, _loop4("{ float v = sh[t * 4 + j]; acc += (float)(((int)v) / n); }"), {(L, 16), (S, 4)}),
    "fast_division": (_SH, _loop4("{ float v = sh[t * 4 + j]; acc += __fdividef(v, acc); }"), {(L, 16), (S, 4)}),
    "nested_16x16": (_SH, "    for (int i = 0; i < 16; ++i)\n        for (int j = 0; j < 16; ++j) "
                     "acc += sh[i * 64 + (t & 3) * 16 + j] * sh[j * 64 + i];", {(L, 4), (L, 16), (S, 4)}),
    # a register tile: merged over the outer kk, the rows m apart stay apart
    "tile_rows": (_SH, "#pragma unroll\n    for (int kk = 0; kk < 8; ++kk) {\n#pragma unroll\n"
                  "        for (int m = 0; m < 4; ++m) acc += sh[((t / 16) * 4 + m) * 8 + kk] * (float)m;\n    }",
                  {(L, 16), (S, 4)}),
    "stores4": (_SH, "    __syncthreads();\n" + _loop4("sh[t * 4 + j] = acc + j;", "") + "\n    __syncthreads();\n"
                "    acc = sh[t ^ 1];", {(L, 4), (S, 4), (S, 16)}),
}

# neighbours: accesses at constant distances in one basic block, in any order
CASES.update({
    "explicit": (_SH, "    acc += sh[t * 4] + sh[t * 4 + 1] + sh[t * 4 + 2] + sh[t * 4 + 3];", {(L, 16), (S, 4)}),
    "explicit_reversed": (_SH, "    acc += sh[t * 4 + 3] * 3.f + sh[t * 4 + 2] * 2.f + sh[t * 4 + 1] + sh[t * 4] * 5.f;",
                          {(L, 16), (S, 4)}),
    "explicit_pair": (_SH, "    acc += sh[t * 2] * sh[t * 2 + 1];", {(L, 8), (S, 4)}),
    "explicit8": (_SH, "    acc += " + " + ".join(f"sh[t * 8 + {k}]" for k in range(8)) + ";", {(L, 16), (S, 4)}),
    "explicit_statements": (_SH, "    float a = sh[t * 4]; float b = sh[t * 4 + 1]; float c = sh[t * 4 + 2];"
                            " float d = sh[t * 4 + 3];\n    acc = a * b + c * d;", {(L, 16), (S, 4)}),
    "explicit_select_between": (_SH, "    float a = sh[t * 4]; float b = sh[t * 4 + 1];\n    if (t < n) acc += 1.f;\n"
                                "    float c = sh[t * 4 + 2]; float d = sh[t * 4 + 3];\n    acc += a * b + c * d;",
                                {(L, 16), (S, 4)}),
    "explicit_mod": (_SH, "    acc += " + " + ".join(f"sh[(t % 16) * 4 + {k}]" for k in range(4)) + ";", {(L, 16), (S, 4)}),
    "explicit_rows": ("    __shared__ float sh[32][32];",
                      "    acc += " + " + ".join(f"sh[t % 32][(t / 32) * 4 + {k}]" for k in range(4)) + ";", {(L, 16), (S, 4)}),
    "explicit_stride3": (_SH, "    acc += sh[t * 3] + sh[t * 3 + 1] + sh[t * 3 + 2];", {(L, 4), (S, 4)}),
    "explicit_stores": (_SH, "    __syncthreads();\n    sh[t * 4] = acc; sh[t * 4 + 1] = acc * 2.f; sh[t * 4 + 2] = acc * 3.f;"
                        " sh[t * 4 + 3] = acc * 4.f;\n    __syncthreads();\n    acc = sh[t ^ 1];", {(L, 4), (S, 4), (S, 16)}),
})

# not modelled: name -> (declaration, body, SASS widths, the analyzer's widths)
LIMITS = {
    # the compiler also loads a whole aligned chunk for 3 of its 4 elements, and reads a
    # repeated address once
    "explicit_gap": (_SH, "    acc += sh[t * 4] + sh[t * 4 + 1] + sh[t * 4 + 3];", {(L, 16), (S, 4)},
                     {(L, 4), (L, 8), (S, 4)}),
    "explicit_unaligned": (_SH, "    acc += sh[t * 4 + 1] + sh[t * 4 + 2] + sh[t * 4 + 3] + sh[t * 4 + 4];",
                           {(L, 4), (L, 16), (S, 4)}, {(L, 4), (L, 8), (S, 4)}),
    "explicit_repeated": (_SH, "    acc += sh[t * 4] + sh[t * 4 + 1] + sh[t * 4] * sh[t * 4 + 2] + sh[t * 4 + 3];",
                          {(L, 16), (S, 4)}, {(L, 4), (L, 16), (S, 4)}),
    # pairs of accesses per iteration of a loop stepping by 2 (merged over the loop too)
    "step2": (_SH, "#pragma unroll\n    for (int j = 0; j < 8; j += 2) acc += sh[t * 8 + j] * sh[t * 8 + j + 1];",
              {(L, 16), (S, 4)}, {(L, 4), (S, 4)}),
    # a long loop without a pragma is unrolled in part, by a factor that depends on its body
    "nopragma128": (_SH, "    for (int j = 0; j < 128; ++j) acc += sh[(t & 7) * 128 + j];", {(L, 16), (S, 4)},
                    {(L, 4), (S, 4)}),
    "nopragma32_16fma": (_SH, "    for (int j = 0; j < 32; ++j) { float v = sh[(t & 31) * 32 + j]; "
                         + " ".join(f"acc = acc * v + {i}.5f;" for i in range(16)) + " }", {(L, 8), (S, 4)},
                         {(L, 16), (S, 4)}),
    # a loop with a run-time count, unrolled by 4 with a remainder
    "runtime_count": (_SH, "#pragma unroll\n    for (int j = 0; j < n; ++j) acc += sh[t * 4 + j];", {(L, 4), (L, 8), (S, 4)},
                      {(L, 4), (S, 4)}),
}


def _model_widths(decl: str, body: str) -> set[tuple[str, int]]:
    program = parse(_kernel("x", decl, body), "case.cu")
    ka = analyze(program, program.kernels[0], {})
    return {(L if a.kind == "load" else S, a.elem_size) for a in ka.accesses
            if a.space == "shared" and a.kind in ("load", "store") and a.issued}


@pytest.mark.parametrize("name", sorted(CASES))
def test_model_widths(name):
    decl, body, widths = CASES[name]
    assert _model_widths(decl, body) == widths


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_model_widths_of_what_is_not_modelled(name):
    decl, body, _, model = LIMITS[name]
    assert _model_widths(decl, body) == model


def _nvdisasm() -> str | None:
    found = shutil.which("nvdisasm")
    if found:
        return found
    try:
        import nvidia
    except ImportError:
        return None
    for root in nvidia.__path__:
        for sub in ("cu13/bin/nvdisasm", "cu12/bin/nvdisasm", "cuda_nvdisasm/bin/nvdisasm"):
            p = Path(root) / sub
            if p.is_file() and os.access(p, os.X_OK):
                return str(p)
    return None


@pytest.fixture(scope="module")
def sass_widths(tmp_path_factory):
    """{case name: {(LDS|STS, bytes)}} from one nvcc run over every case."""
    nvdisasm = _nvdisasm()
    if shutil.which("nvcc") is None or nvdisasm is None:
        pytest.skip("needs nvcc and nvdisasm (pip install nvidia-cuda-nvdisasm)")
    d = tmp_path_factory.mktemp("sass")
    cases = {**{k: v[:2] for k, v in CASES.items()}, **{k: v[:2] for k, v in LIMITS.items()}}
    (d / "cases.cu").write_text("".join(_kernel(k, *v) for k, v in cases.items()))
    cc = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-o", str(d / "cases.cubin"), str(d / "cases.cu")],
                        capture_output=True, text=True)
    assert cc.returncode == 0, cc.stderr[-2000:]
    sass = subprocess.run([nvdisasm, "-c", str(d / "cases.cubin")], capture_output=True, text=True, check=True).stdout
    out: dict[str, set] = {}
    for part in re.split(r"^\.text\.k_", sass, flags=re.M)[1:]:
        name = part.split(":", 1)[0]
        out[name] = {(m.group(1), int(m.group(2) or 32) // 8)
                     for m in re.finditer(r"\b(LDS|STS)(?:\.U?(\d+))?\b", part)}
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES) + sorted(LIMITS))
def test_sass_widths(name, sass_widths):
    expected = CASES[name][2] if name in CASES else LIMITS[name][2]
    assert sass_widths[name] == expected


def test_register_tiled_matmul_has_no_bank_conflict_finding():
    # the corpus's matmul block2d_64x64x8_t4x4: ncu counts no conflicts (1.00-way) on its shared
    # loads, which the compiler issues as LDS.128; as scalar loads they would be 2-way
    from corpus.families import all_samples

    s = next(x for x in all_samples() if x.family == "matmul" and x.variant == "block2d_64x64x8_t4x4")
    res = lint_source(s.source, "mm.cu")
    assert not [f for f in res.findings if f.code == "SM201"]
    est = [e for ctx in res.contexts for a, e in zip(ctx.accesses.accesses, ctx.estimates)
           if a.space == "shared" and a.kind == "load"]
    assert est and all(e is not None and e.units == pytest.approx(e.ideal_units) for e in est)


# ---- the pure functions

def test_linear_coefficient():
    j = ("s", "j")
    t = ("s", "threadIdx.x")
    addr = ("b", "*", ("b", "+", ("b", "*", t, ("c", 4)), j), ("c", 4))      # (t * 4 + j) * 4
    assert V.linear_coefficient(addr, "j") == 4
    assert V.linear_coefficient(addr, "k") == 0
    assert V.linear_coefficient(("b", "<<", j, ("c", 3)), "j") == 8
    assert V.linear_coefficient(("b", "-", ("c", 0), j), "j") == -1
    assert V.linear_coefficient(("b", "*", j, j), "j") is None
    assert V.linear_coefficient(("b", "%", j, ("c", 4)), "j") is None
    assert V.linear_coefficient(("b", "*", j, ("s", "n")), "j") is None


def test_trailing_zeros():
    t = ("s", "threadIdx.x")
    assert V.trailing_zeros(("c", 48), {}) == 4
    assert V.trailing_zeros(("c", 0), {}) == 64
    assert V.trailing_zeros(("b", "*", t, ("c", 16)), {}) == 4
    assert V.trailing_zeros(("b", "+", ("b", "*", t, ("c", 16)), ("c", 8)), {}) == 3
    assert V.trailing_zeros(("b", "<<", t, ("c", 2)), {}) == 2
    assert V.trailing_zeros(("b", "&", t, ("c", -8)), {}) == 3
    assert V.trailing_zeros(("b", "%", ("b", "*", t, ("c", 16)), ("c", 5)), {}) == 0
    assert V.trailing_zeros(("s", "j"), {"j": 2}) == 2


def test_vector_elements():
    t = ("s", "threadIdx.x")
    j = ("s", "j")
    addr = ("b", "*", ("b", "+", ("b", "*", t, ("c", 4)), j), ("c", 4))
    assert V.vector_elements(addr, 4, "j", 0, 4, 4) == 4
    assert V.vector_elements(addr, 4, "j", 0, 4, 2) == 2       # #pragma unroll 2
    assert V.vector_elements(addr, 4, "j", 1, 4, 4) == 1       # starts at t * 4 + 1
    assert V.vector_elements(addr, 4, "j", 0, 6, 6) == 2       # 6 trips: pairs
    assert V.vector_elements(addr, 4, "j", 0, 4, 1) == 1       # not unrolled
    assert V.vector_elements(addr, 8, "j", 0, 4, 4) == 1       # moves by 4 bytes, not 8


def test_unroll_factor():
    assert V.unroll_factor(4, None) == 4
    assert V.unroll_factor(64, None) == 64
    assert V.unroll_factor(128, None) == 1
    assert V.unroll_factor(16, None, inner=16) == 1
    assert V.unroll_factor(256, 0) == 256
    assert V.unroll_factor(8, 2) == 2
    assert V.unroll_factor(8, 1) == 1


def test_unroll_pragmas_map_to_the_loop_line():
    src = (b"#define TN 4\nvoid f() {\n#pragma unroll\n  for (;;) {}\n#pragma unroll 2\n\n  // why\n  for (;;) {}\n"
           b"  #pragma unroll TN\n  for (;;) {}\n#pragma nounroll\n  for (;;) {}\n#pragma unroll (8)\n  for (;;) {}\n}\n")
    assert unroll_pragmas(src, {"TN": 4}) == {4: 0, 8: 2, 10: 4, 12: 1, 14: 8}


def test_constant_difference():
    t = ("s", "threadIdx.x")
    a = ("b", "*", ("b", "%", t, ("c", 16)), ("c", 16))
    assert V.constant_difference(("b", "+", a, ("c", 8)), a) == 8
    assert V.constant_difference(a, ("b", "+", a, ("c", 8))) == -8
    assert V.constant_difference(("b", "*", t, ("c", 4)), ("b", "*", t, ("c", 8))) is None
    assert V.constant_difference(("b", "+", ("b", "*", t, ("c", 4)), ("c", 12)), ("b", "*", t, ("c", 4))) == 12


def test_folded_neighbours_issue_no_request():
    # four scalar loads of one thread's 16 bytes: one LDS.128 a warp, the other three nothing
    from analyzer.lint import LaunchSpec

    decl, body, _ = CASES["explicit"]
    res = lint_source(_kernel("x", decl, body), "x.cu", launches={"k_x": LaunchSpec((128, 1, 1), (1, 1, 1), 0, {})})
    ctx = res.contexts[0]
    loads = [(a, e) for a, e in zip(ctx.accesses.accesses, ctx.estimates) if a.space == "shared" and a.kind == "load"]
    assert sorted(a.issued for a, _ in loads) == [False, False, False, True]
    assert [e.requests for a, e in loads if a.issued] == [4.0]       # 4 warps, one request each
    assert all(e.requests == 0 for a, e in loads if not a.issued)
