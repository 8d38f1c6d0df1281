"""A variable that a loop shifts (`s <<= 1`, `s *= 2`, `s >>= 1`: the stride of a Blelloch scan)
has a closed form inside the loop, value0 shifted by the iteration count, as one a loop adds to
has (value0 + iteration * step): the accesses it indexes are modelled, not unknown."""
from __future__ import annotations

import pytest

from analyzer import symbolic as S
from analyzer.lint import LaunchSpec, lint_source

KERNEL = """__global__ void k(float* out) {{
    __shared__ float buf[32 * 16];
    int s = {start};
    for (int it = 0; it < 4; ++it) {{
        buf[s * threadIdx.x] = 0.0f;
        s {update};
    }}
    out[threadIdx.x] = buf[threadIdx.x];
}}
"""


def _store(start, update):
    r = lint_source(KERNEL.format(start=start, update=update), "k.cu",
                    launches={"k": LaunchSpec((32, 1, 1), (1, 1, 1))})
    ctx = r.contexts[0]
    (e,) = [e for a, e in zip(ctx.accesses.accesses, ctx.estimates) if a.space == "shared" and a.kind == "store"]
    return e, r.findings


@pytest.mark.parametrize("start, update", [(1, "<<= 1"), (1, "*= 2"), (8, ">>= 1")])
def test_strides_1_2_4_8_words_are_1_2_4_8_way(start, update):
    # one warp, four iterations: strides of 1, 2, 4 and 8 words conflict 1-, 2-, 4- and 8-way
    e, findings = _store(start, update)
    assert e is not None
    assert e.units / e.requests == pytest.approx((1 + 2 + 4 + 8) / 4)
    assert e.ideal_units / e.requests == 1
    assert any(f.code == "SM201" and f.line == 5 for f in findings)


@pytest.mark.parametrize("update", ["*= 3", "+= s", "<<= s"])
def test_other_updates_stay_unknown(update):
    e, _ = _store(1, update)
    assert e is None


AFTER = """__global__ void k(float* out, int n) {{
    __shared__ float buf[32 * 32];
    int s = 1;
    for (int it = 0; it < {bound}; ++it) {{
        {body}
        s <<= 1;
    }}
    buf[s * threadIdx.x] = 0.0f;
    out[threadIdx.x] = buf[threadIdx.x];
}}
"""


def _after(bound, body=""):
    r = lint_source(AFTER.format(bound=bound, body=body), "k.cu", launches={"k": LaunchSpec((32, 1, 1), (1, 1, 1))})
    ctx = r.contexts[0]
    (e,) = [e for a, e in zip(ctx.accesses.accesses, ctx.estimates) if a.space == "shared" and a.kind == "store"]
    return e


def test_after_a_loop_of_a_known_count_the_value_is_known():
    # s = 1 << 4 = 16 words apart: 16 lanes per bank pair up, a 16-way conflict
    e = _after(4)
    assert e is not None and e.units / e.requests == 16


@pytest.mark.parametrize("bound, body", [("n", ""), (4, "if (out[it] > 0) break;")])
def test_after_a_loop_of_an_unknown_count_the_value_is_unknown(bound, body):
    assert _after(bound, body) is None


ONCE = """__global__ void k(float* out, const float* in, int n) {{
    __shared__ float buf[32 * 256];
    int s = 1;
    const float* p = in;
    for (int it = 0; it < 4; ++it) {{
        {body}
        buf[s * threadIdx.x] = p[threadIdx.x];
    }}
    out[threadIdx.x] = buf[threadIdx.x];
}}
"""


def _once(body):
    r = lint_source(ONCE.format(body=body), "k.cu", launches={"k": LaunchSpec((32, 1, 1), (1, 1, 1))})
    ctx = r.contexts[0]
    (store,) = [e for a, e in zip(ctx.accesses.accesses, ctx.estimates) if a.space == "shared" and a.kind == "store"]
    (load,) = [e for a, e in zip(ctx.accesses.accesses, ctx.estimates)
               if a.space == "global" and a.kind == "load" and a.line == 7]
    return store, load


@pytest.mark.parametrize("body", ["s <<= 1; p += 32;", "{ s <<= 1; } p += 32;", "(s <<= 1), p += 32;",
                                  "for (int j = 0; j < 2; ++j) continue; s <<= 1; p += 32;",
                                  "// continue\\n s <<= 1; p += 32;"])
def test_an_update_in_every_iteration_has_a_closed_form(body):
    store, load = _once(body)
    assert store is not None and load is not None


@pytest.mark.parametrize("body", [
    "if (out[it] > 0) s <<= 1; if (out[it] > 0) p += 32;",       # not every iteration
    "if (out[it] > 0) continue; s <<= 1; p += 32;",              # skipped by a continue
    "for (int j = 0; j < 2; ++j) { s <<= 1; p += 32; }",          # twice an iteration
    "out[it] > 0 ? (s <<= 1) : 0; out[it] > 0 ? (p += 32) : 0;",
])
def test_an_update_not_in_every_iteration_leaves_the_value_unknown(body):
    # a closed form value0 << iteration (p + 32 * iteration) would be wrong here: the accesses that
    # use it are unknown, not estimated from it
    store, load = _once(body)
    assert store is None and load is None


HEADER = """__global__ void k(float* out, const float* in, int n) {
    const float* p = in + threadIdx.x;
    float acc = 0.0f;
    for (int it = 0; it < 4; ++it, p += 32 * n) {
        acc += p[0];
    }
    int j = threadIdx.x;
    for (int it = 0; it < 4; j += 7, it++) {
        if (j > n) continue;    // the header's update still runs
        acc += in[j * 32];
    }
    out[threadIdx.x] = acc;
}
"""


def test_a_for_header_with_a_comma_steps_its_variable_and_carries_the_others():
    # `++it, p += 32 * n`: the loop runs 4 times (it had no step: one iteration was modelled) and
    # p moves with it (it was taken for loop-invariant); `j += 7, it++`: j strides 7 elements
    r = lint_source(HEADER, "k.cu", launches={"k": LaunchSpec((32, 1, 1), (1, 1, 1), 0, {"n": 1024})})
    ctx = r.contexts[0]
    got = {a.line: e for a, e in zip(ctx.accesses.accesses, ctx.estimates) if a.kind == "load"}
    assert got[5].requests == 4 and got[5].units == 16
    assert "iter@4" in repr(ctx.accesses.accesses[0].address)
    assert got[10].requests == 4 and got[10].units / got[10].requests == 32
    assert "iter@8" in repr([a.address for a in ctx.accesses.accesses if a.line == 10])


WHILE = """__global__ void k(const float* x, float* y, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    {loop}
    y[i] = 0.0f;
}}
"""


def _while(loop):
    r = lint_source(WHILE.format(loop=loop), "k.cu", launches={"k": LaunchSpec((128, 1, 1), (4, 1, 1), 0, {"n": 4096})})
    ctx = r.contexts[0]
    return [(a.line, a.kind, e) for a, e in zip(ctx.accesses.accesses, ctx.estimates)]


def test_a_while_loop_that_steps_and_tests_one_variable_is_a_counted_loop():
    # a grid-stride while loop: 4096 elements over 512 threads, 8 iterations of 4 warps each
    got = _while("while (i < n) { y[i] = x[i]; i += blockDim.x * gridDim.x; }")
    inside = [e for line, _, e in got if line == 3]
    assert len(inside) == 2 and all(e.requests == 32 and e.units == 128 for e in inside)
    (after,) = [e for line, _, e in got if line == 4]
    assert after is None     # i after the loop: unknown


@pytest.mark.parametrize("loop", [
    "while (i < n) { y[i] = x[i]; if (x[i] > 0) i += 512; else i += 1024; }",   # two updates
    "while (i < n) { if (x[i] > 0) { i += 512; continue; } y[i] = x[i]; i += 512; }",
    "while (i < n) { y[i] = x[i]; i += i; }",                                   # not invariant
    "do { y[i] = x[i]; if (x[i] > 0) i += 512; } while (i < n);",               # an update not every time
])
def test_other_while_loops_keep_one_modelled_iteration(loop):
    got = _while(loop)
    assert all(e is None or e.requests == 4 for line, _, e in got if line == 3)


def test_a_do_loop_that_steps_and_tests_one_variable_is_a_counted_loop():
    # the grid-stride loop as a do loop: the same 8 iterations of 4 warps (was one iteration)
    got = _while("do { y[i] = x[i]; i += blockDim.x * gridDim.x; } while (i < n);")
    inside = [e for line, _, e in got if line == 3]
    assert len(inside) == 2 and all(e.requests == 32 and e.units == 128 for e in inside)


def test_a_for_loop_without_an_initializer_counts_on_the_variable_it_steps():
    # `for (; i < n; i += stride)` with i set before it: 8 iterations of 4 warps, not one
    got = _while("for (; i < n; i += blockDim.x * gridDim.x) y[i] = x[i];")
    inside = [e for line, _, e in got if line == 3]
    assert len(inside) == 2 and all(e.requests == 32 and e.units == 128 for e in inside)


GRID_STRIDE = """__global__ void k(const float* x, float* y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = x[i];
}
"""


@pytest.mark.parametrize("n,per_block", [(512, 2.0), (1024, 4.0), (4096, 16.0), (640, 2.5)])
def test_a_grid_stride_loop_counts_the_grid_s_mean_iterations(n, per_block):
    # 8 blocks of 128 threads: with n = 512 blocks 0-3 run one iteration and 4-7 none (block 1,
    # the one simulated, runs one: taken for every block it counted twice the requests); n = 640:
    # blocks 0-4 run one
    r = lint_source(GRID_STRIDE, "k.cu", launches={"k": LaunchSpec((128, 1, 1), (8, 1, 1), 0, {"n": n})})
    ctx = r.contexts[0]
    assert [e.requests for e in ctx.estimates] == [per_block, per_block]


def test_a_grid_stride_loop_over_an_unknown_size_keeps_the_simulated_block_s_count():
    # n not given: 4096 assumed, which must not decide which blocks run nothing
    r = lint_source(GRID_STRIDE, "k.cu", launches={"k": LaunchSpec((128, 1, 1), (64, 1, 1), 0, {})})
    ctx = r.contexts[0]
    assert [e.requests for e in ctx.estimates] == [4.0, 4.0] and "n" in ctx.estimates[0].assumed



def test_a_toggle_alternates_and_a_second_for_declarator_is_a_variable_of_the_loop():
    """A double buffer: `for (int k = 0, s = 0; k < n; k += 32, s ^= 1)` reads stage s of two.
    The loop's variable is the one its condition compares (k: it was the last declarator, s, and
    k was unknown); s ^= 1 is s0 ^ (iteration & 1): stage 0, 1, 0, 1 (it was unknown)."""
    src = """__global__ void k(const float* x, float* out, int n) {
    __shared__ float buf[2][64 * 33];
    float acc = 0.0f;
    for (int k = 0, s = 0; k < n; k += 32, s ^= 1) {
        buf[s][threadIdx.x * 33] = x[k + threadIdx.x];
        __syncthreads();
        acc += buf[s][threadIdx.x];
        __syncthreads();
    }
    out[threadIdx.x] = acc;
}
"""
    r = lint_source(src, "k.cu", launches={"k": LaunchSpec((32, 1, 1), (1, 1, 1), args={"n": 128})})
    ctx = r.contexts[0]
    got = {(a.kind, a.space): e for a, e in zip(ctx.accesses.accesses, ctx.estimates)}
    assert all(e is not None for e in got.values())
    assert not ctx.estimates[0].assumed                     # k is the loop's: nothing assumed
    assert got[("load", "global")].requests == 4            # 128 / 32 iterations, one warp
    assert got[("store", "shared")].per_request == 1.0      # stride 33 words: no conflict
    assert "s ^ (" in str(ctx.accesses.accesses[1].address) or "^" in repr(ctx.accesses.accesses[1].address)


@pytest.mark.parametrize("loop, trips", [
    ("for (int j = 0; j < 8; ++j) { y[i] = x[i]; }", 8),
    ("int j = 0; while (j++ < 8) { y[i] = x[i]; }", 8),       # tested, then stepped: 0..7 pass
    ("int j = 0; while (++j < 8) { y[i] = x[i]; }", 7),       # stepped, then tested: 1..7 pass
    ("int j = 0; do { y[i] = x[i]; } while (++j < 8);", 8),   # a do runs once before the test
    ("int j = 0; do { y[i] = x[i]; } while (j++ < 8);", 9),
    ("int j = 8; while (j-- > 0) { y[i] = x[i]; }", 8),
])
def test_a_loop_whose_condition_steps_its_variable_is_counted(loop, trips):
    # (these were one modelled iteration, and the reward called them work it cannot count)
    got = _while(loop)
    inside = [e for line, _, e in got if line == 3]
    assert len(inside) == 2 and all(e.requests == 4 * trips for e in inside), [e.requests for e in inside]


def test_the_variable_a_condition_steps_has_its_stepped_value_in_the_body():
    # `while (j++ < 8)`: the body reads j one past the value tested, 1..8
    src = WHILE.format(loop="int j = 0; while (j++ < 8) { y[i * 9 + j] = 0.0f; }")
    r = lint_source(src, "k.cu", launches={"k": LaunchSpec((128, 1, 1), (4, 1, 1), 0, {"n": 4096})})
    (store,) = [a for a in r.contexts[0].accesses.accesses if a.line == 3]
    env = {"blockIdx.x": 0, "blockDim.x": 128, "threadIdx.x": 0}
    assert S.evaluate(store.address, {**env, store.loops[0].var: 0}) == 4      # bytes: element 1
