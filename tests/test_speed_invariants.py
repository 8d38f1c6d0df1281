"""The shortcuts taken for lint speed give the same answers as the plain computations.

Each test runs the fast path and the straightforward one side by side (no timings).
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from analyzer import models
from analyzer import symbolic as S
from analyzer.access import _Walker, analyze
from analyzer.lint import lint_source
from analyzer.parse import eval_constant, parse
from analyzer.resources import _DECL, _DOUBLE, _LOCAL_ARRAY, _VECTOR, _word_matches
from analyzer.rules import KernelContext

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "analyzer" / "examples").glob("*.cu")) + sorted((ROOT / "tests" / "fixtures" / "rules").glob("*.cu"))


def _general_shared(addr, active, size):
    """shared_wavefronts' general path (phases and words per lane), used for every size."""
    n = addr.shape[0]
    a = addr.astype(np.int64).reshape(-1, 32)
    m = active.reshape(-1, 32)
    words_per_lane = max(1, size // 4)
    lanes_per_phase = 32 if size <= 4 else max(1, 128 // size)
    phases = 32 // lanes_per_phase
    w = a.shape[0]
    words = np.stack([a // 4 + k for k in range(words_per_lane)], axis=2).reshape(w, phases, -1)
    valid = np.repeat(m[:, :, None], words_per_lane, axis=2).reshape(w, phases, -1)
    per_phase = np.zeros((w, phases))
    for i in range(w):
        for p in range(phases):
            distinct = {int(x) for x, ok in zip(words[i, p], valid[i, p]) if ok}
            banks = [0] * 32
            for x in distinct:
                banks[x % 32] += 1
            per_phase[i, p] = max(banks)
    return m.any(axis=1).astype(np.float64), per_phase.sum(axis=1), (per_phase > 0).sum(axis=1).astype(np.float64)


@pytest.mark.parametrize("size", [1, 2, 4])
def test_shared_fast_path_matches_the_general_count(size):
    rng = np.random.default_rng(size)
    for trial in range(200):
        n = 32 * int(rng.integers(1, 4))
        kind = trial % 3
        if kind == 0:
            addr = rng.integers(-5000, 100000, n) * size
        elif kind == 1:
            addr = np.arange(n) * int(rng.integers(0, 70)) * size
        else:
            addr = rng.integers(0, 64, n)
        active = rng.random(n) < rng.choice([0.0, 0.5, 1.0])
        got = models.shared_wavefronts(addr, active, size)
        want = _general_shared(addr, active, size)
        for g, w in zip(got, want):
            assert np.array_equal(g, w)


def _contexts(path):
    return lint_source(path.read_text(), str(path)).contexts


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_batched_estimates_equal_one_access_at_a_time(path):
    for ctx in _contexts(path):
        fresh = KernelContext(ctx.program, ctx.kernel, ctx.accesses, ctx.launch, ctx.launch_source, ctx.arch,
                              ctx.resources, launch_smem=ctx.launch_smem)
        alone = [models.estimate(a, ctx.launch, max_iters=ctx.options.max_iters, needed=fresh.symbols, own=own)
                 for a, own in zip(ctx.accesses.accesses, fresh.access_symbols)]
        assert ctx.estimates == alone


# what the text scan of assigned_names must tell apart: operators that hold `=` but assign nothing,
# `=` in comments, strings and declarations, targets that are not plain names, C++'s word operators
ASSIGNMENT_EDGES = r"""
struct V { float x; V& operator=(const V& o) { x = o.x; return *this; } };
__global__ void edges(float* a, int* b, int n) {
    int i = threadIdx.x, j = 0;   // i = 1 in a comment; j == 0
    const char* s = "k = 2; m++";
    /* q += 3; */
    for (int k = 0; k < n && k <= 8 && k >= 0 && k != 5; k += 2) {
        a[k] = b[k] == 1 ? a[k] : 0.f;
        i = j = k;
        j <<= 1; j >>= 1; j |= 2; j &= 7; j ^= 1; j %= 3; j /= 2; j *= 4; j -= 1;
        i and_eq 3; i or_eq 4; i xor_eq 5;
        int band_eq = 0, x_eq = 1, is_eq = 2; band_eq = x_eq; x_eq and_eq band_eq; is_eq++; x_eq xor_eq is_eq;
        i+++j; --j; j--; ++b[k]; (*b)++; b[0]--;
        auto f = [&](int t) { t = i; j += t; return t; };
        f(k);
        V v; v.x = 1.f; v = v;
        if ((i = k) == 3) { j = 0; }
    }
}
"""
ASSIGNMENT_SOURCES = [(p.name, p.read_text()) for p in SOURCES] + [("edges", ASSIGNMENT_EDGES)]


@pytest.mark.parametrize("source", ASSIGNMENT_SOURCES, ids=lambda s: s[0])
def test_assigned_names_are_the_walks_in_its_order(source):
    program = parse(source[1])
    if not program.kernels:
        pytest.skip("no kernel")
    analyze(program, program.kernels[0])    # as lint does first (it reads the grammar's ids)
    walker = _Walker(program, program.kernels[0], {})
    loops = []
    stack = [program.tree.root_node]
    while stack:
        n = stack.pop()
        if n.type in ("for_statement", "while_statement", "do_statement", "compound_statement"):
            loops.append(n)
        stack.extend(n.children)
    for node in loops:
        want: dict[str, list] = {}
        stack = [node]
        while stack:   # a right-to-left pre-order walk of every node: what the text scan replaces
            n = stack.pop()
            if n.type in ("assignment_expression", "update_expression"):
                target = n.child_by_field_name("left" if n.type == "assignment_expression" else "argument")
                if target is not None and target.type == "identifier":
                    want.setdefault(program.text(target), []).append(n)
            stack.extend(n.children)
        got = walker.assigned_names(node)
        assert list(got) == list(want)
        assert all([x.id for x in got[k]] == [x.id for x in want[k]] for k in want)


WORDS = ["int x", "unsigned int x", "print int y", "int int x", "xint y", "_int a", "int\tb; float4 c", "int4 x",
         "aint4 y", "double d; mydouble e", "float a[4]; xint b[2]; int  c [ N ] [3]", "é int x", "1int x"]


@pytest.mark.parametrize("pattern", [_DECL, _VECTOR, _DOUBLE, _LOCAL_ARRAY], ids=["decl", "vector", "double", "array"])
def test_word_matches_equal_a_leading_word_boundary(pattern):
    texts = WORDS + [p.read_text() for p in SOURCES]
    for t in texts:
        got = [(m.span(), m.groups()) for m in _word_matches(pattern, t)]
        want = [(m.span(), m.groups()) for m in re.finditer(r"\b" + pattern.pattern, t)]
        assert got == want, t[:60]


@pytest.mark.parametrize("text", ["256", "0", "00", "007", "N", "M", "X", "True", "None", "match", "and", "256u",
                                  "0x10", "1<<4", " 12 ", "N*2", "(int)N", ""])
def test_eval_constant_shortcuts(text):
    known = {"N": 256, "M": 3.5}
    import ast

    def slow(t):
        t = t.strip()
        if not t:
            return None
        t = re.sub(r"(?<=[0-9a-fA-FxX])[uUlL]+\b", "", t)
        t = re.sub(r"\(\s*(?:unsigned\s+)?(?:int|long|size_t|float|double|unsigned)\s*\)", "", t)
        try:
            node = ast.parse(t, mode="eval").body
        except SyntaxError:
            return None
        from analyzer.parse import _eval_node
        try:
            return _eval_node(node, known)
        except (ValueError, ZeroDivisionError, TypeError, OverflowError, RecursionError):
            return None

    assert eval_constant(text, known) == slow(text)


def test_identity_memos_answer_for_equal_but_distinct_expressions():
    a = ("b", "+", ("b", "*", ("s", "blockIdx.x"), ("s", "blockDim.x")), ("s", "threadIdx.x"))
    b = S.binop("+", S.binop("*", S.sym("blockIdx.x"), S.sym("blockDim.x")), S.sym("threadIdx.x"))
    assert a == b and a is not b
    assert S.size(a) == S.size(b) == 5
    assert S.symbols(a) == S.symbols(b) == {"blockIdx.x", "blockDim.x", "threadIdx.x"}
    env = {"blockIdx.x": 2, "blockDim.x": 128, "threadIdx.x": np.arange(4)}
    assert np.array_equal(S.evaluate(a, env), S.evaluate(b, env))
    assert S.evaluate(("b", "/", ("s", "n"), ("c", 0)), {"n": 3}) is None


DIRECTIVE_TEXTS = [
    b"#define A __device__\n  # define B(x) for(int i=0;i<x;i++)\\\n  more\n#pragma unroll 4\nfoo_HD x_DEVICE MY_DEVICE aFOO_HD\n#",
    b"", b"#", b"\n#define X 1", b"x # define Y 2\n#define Z 3",
    b"  #  pragma  unroll\n\t#pragma nounroll\n#define F(a,\nb) for (a;b;)\n#define G(c) while(c)\n# define H 4 // #define I 5",
    b"#define K(a) for (a;;) \\\n#define L 1\n#define M 2\nCUDA_KERNEL MY_API_DI _X_HD 9_DEVICE",
]


def _preprocess_sources():
    return DIRECTIVE_TEXTS + [p.read_bytes() for p in SOURCES]


def test_directive_scan_equals_finditer():
    from analyzer.parse import _DEFINE, _FUNC_MACRO, _PRAGMA_UNROLL, _directives

    for src in _preprocess_sources():
        # the same text for several patterns (the lines are kept for the last text), and a copy
        for text in (src, bytearray(src), bytes(src)):
            for pattern in (_DEFINE, _FUNC_MACRO, _PRAGMA_UNROLL):
                assert [m.span() for m in _directives(pattern, text)] == [m.span() for m in pattern.finditer(text)]


def test_word_starts_equal_a_leading_word_boundary():
    from analyzer.parse import _QUALIFIER_SUFFIX, _word_starts

    plain = re.compile(rb"\b" + _QUALIFIER_SUFFIX.pattern)
    for src in _preprocess_sources():
        assert [m.span() for m in _word_starts(_QUALIFIER_SUFFIX, src)] == [m.span() for m in plain.finditer(src)]


def test_trip_count_of_thread_arrays_equals_the_elementwise_maximum():
    from analyzer.access import Loop

    rng = np.random.default_rng(0)
    for trial in range(300):
        op = ["<", "<=", ">", ">=", "!="][trial % 5]
        step = "+=" if trial % 2 else "-="
        inc = int(rng.integers(-5, 6))
        bound = int(rng.integers(-3000, 3000))
        init = rng.integers(-3000, 3000, int(rng.integers(1, 64)))
        loop = Loop("i@1", ("s", "init"), ("b", op, ("s", "i@1"), ("s", "bound")), (step, ("c", inc)), 1, "for", "iter@1")
        env = {"bound": bound}
        got = models._trips(loop, env, init, inc)
        # the general numpy path, as it was before the shortcut
        sinc = np.asarray(inc) * (1 if step == "+=" else -1)
        if np.any(sinc == 0):
            want = None
        elif op != "!=" and (sinc > 0) != (op in ("<", "<=")):
            # the variable moves away from the bound: no end where the condition holds at the start
            holds = {"<": init < bound, "<=": init <= bound, ">": init > bound, ">=": init >= bound}[op]
            want = None if holds.any() else 0.0
        else:
            span = np.asarray(bound, dtype=np.float64) - np.asarray(init, dtype=np.float64)
            if op in ("<=", ">="):
                span = span + np.sign(sinc)
            want = float(np.max(np.maximum(0.0, np.ceil(span / sinc))))
        assert got == want and (got is None or str(got) == str(want))


def _plain_points(loops, depth, env, max_iters, budget):
    """The straightforward sampler the cache replaced (the analyzer's code until 2026-12-03):
    step each loop, one budget unit per sample, recurse into the inner loops."""
    if depth == len(loops):
        return [(env, 1.0)]
    loop = loops[depth]
    var = loop.var
    init = S.evaluate(loop.init, env) if var else None
    if var is None or init is None or loop.step is None:
        env2 = dict(env)
        env2[loop.iter_symbol] = 0
        if var is not None:
            env2[var] = init
        return _plain_points(loops, depth + 1, env2, max_iters, budget)
    op, step = loop.step
    inc = S.evaluate(step, env)
    additive = op in ("+=", "-=")
    cap = max_iters if additive else max_iters * 4
    trips = models._trips(loop, env, init, inc) if additive else None
    value, sampled, k = init, [], 0
    while k < cap and budget[0] > 0 and value is not None and inc is not None:
        env2 = dict(env)
        env2[var] = value
        env2[loop.iter_symbol] = k
        if loop.cond is not None:
            c = S.evaluate(loop.cond, env2)
            if c is not None and not (c.any() if isinstance(c, np.ndarray) else c):
                break
        sampled.append(env2)
        budget[0] -= 1
        value = models._step(op, value, inc)
        k += 1
    if not sampled:
        return []
    weight = trips / len(sampled) if trips and trips > len(sampled) else 1.0
    inner, starved = [], 0
    for env2 in sampled:
        pts = _plain_points(loops, depth + 1, env2, max_iters, budget)
        starved += not pts and budget[0] <= 0
        inner.append(pts)
    iterations = trips if trips and trips > len(sampled) else len(sampled)
    if trips and trips > len(sampled):      # inner work that depends on this loop's variable
        factor = models._inner_work_factor(loops, depth, env, sampled, trips)
        weight, iterations = weight * factor, iterations * factor
    if starved and starved < len(sampled):   # samples the budget left without points: the others stand for them
        weight = iterations / (len(sampled) - starved)
    return [(e, w * weight) for pts in inner for e, w in pts]


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_cached_loop_levels_equal_the_plain_sampling(path):
    for ctx in _contexts(path):
        env, _, _ = ctx.points.bind(ctx.launch, ctx.symbols, ctx.param_defaults, models.MAX_THREADS)
        for loops in {a.loops for a in ctx.accesses.accesses} | {b.loops for b in ctx.accesses.branches}:
            for budget in (64, 5, 1):
                cached = models.PointCache()._points(loops, 0, env, ctx.options.max_iters, [budget])
                plain = _plain_points(loops, 0, env, ctx.options.max_iters, [budget])
                assert len(cached) == len(plain)
                for (e1, w1), (e2, w2) in zip(cached, plain):
                    assert w1 == w2 and e1.keys() == e2.keys()
                    assert all(np.array_equal(e1[k], e2[k]) for k in e1)


def test_fast_init_keeps_the_dataclass_behaviour():
    import dataclasses
    import pickle

    from analyzer.access import Access, Loop
    from analyzer.rules import Finding

    loop = Loop("i@3", ("c", 0), None, ("+=", ("c", 1)), 3)
    assert loop.kind == "for" and loop.iter_symbol == ""
    a = Access("x", "global", "load", ("s", "threadIdx.x"), 4, "float", 1, 2, "x[i]", (loop,), (), "k")
    assert a == dataclasses.replace(a) and hash(a) == hash(pickle.loads(pickle.dumps(a)))
    assert repr(a).startswith("Access(array='x', space='global'")
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.line = 3
    f = Finding("GM101", "n", "warning", "m", "p", 1, 1)
    assert f.kernel == "" and f.estimate == {} and f.estimate is not Finding("GM101", "n", "warning", "m", "p", 1, 1).estimate
    with pytest.raises(TypeError):
        Loop("i", ("c", 0))


def test_is_unknown_memo_answers_for_equal_but_distinct_expressions():
    a = ("b", "+", ("f", "foo", (("s", "n"),)), ("c", 1))
    b = S.binop("+", ("f", "foo", (S.sym("n"),)), S.const(1))
    assert a == b and a is not b
    assert S.is_unknown(a) and S.is_unknown(b)
    assert not S.is_unknown(("b", "*", ("f", "min", (("s", "n"), ("c", 4))), ("s", "threadIdx.x")))
    assert S.is_unknown(("u", "-", ("ld", "x", ("s", "i"))))


def test_reward_gate_literals_cover_their_patterns():
    """hacking_gates runs _TIMERS / _LIBRARIES only on text holding one of their literal words:
    every string either pattern matches holds one."""
    from rewardmodel import reward as R

    timers = ["clock", "clock64", "__globaltimer", "globaltimer", "cudaEventRecord", "cudaStreamCreate",
              "cudaDeviceSynchronize", "cudaGraphLaunch", "cuEventRecord", "cuStreamSynchronize", "cudaLaunchKernel",
              "cudaMemcpyAsync", "nanosleep", "__nanosleep", "%globaltimer", "%clock"]
    libs = ["cublasSgemm", "cudnnConv", "cutlass::gemm", "thrust::sort", "cub::DeviceReduce", "torch::empty", "at::zeros"]
    for word, pattern, literals in [(w, R._TIMERS, R._TIMER_WORDS) for w in timers] + \
                                   [(w, R._LIBRARIES, R._LIBRARY_WORDS) for w in libs]:
        text = f"x = {word}(1);"
        assert pattern.search(text), word
        assert any(lit in text for lit in literals), word
    # every alternative of the patterns is in the lists above
    assert len(R._TIMERS.pattern.split("|")) == 16 and len(R._LIBRARIES.pattern.split("|")) == 7


def test_ndim_equals_numpys():
    values = [0, -3, 1 << 70, 2.5, True, np.int64(4), np.float32(1.5), np.bool_(False), np.array(7),
              np.arange(3), np.zeros((2, 3)), [1, 2], [[1], [2]], (), None, "text"]
    for v in values:
        assert S.ndim(v) == np.ndim(v), repr(v)


def test_loop_hash_is_kept_and_stays_home():
    import pickle

    from analyzer.access import Loop
    lp = Loop("i", ("c", 0), ("b", "<", ("s", "i"), ("s", "n")), ("+=", ("c", 1)), 3)
    fields = (lp.var, lp.init, lp.cond, lp.step, lp.line, lp.kind, lp.iter_symbol)
    assert hash(lp) == hash(fields) == hash(lp)           # the dataclass's value, kept after the first
    twin = pickle.loads(pickle.dumps(lp))
    assert twin == lp and "_hash" not in twin.__dict__ and hash(twin) == hash(lp)
    assert "_hash" not in pickle.loads(pickle.dumps(Loop("j", ("c", 0), None, None, 1))).__dict__
    assert {lp: 1}[Loop("i", ("c", 0), ("b", "<", ("s", "i"), ("s", "n")), ("+=", ("c", 1)), 3)] == 1


def _random_expr(rng, depth):
    if depth == 0 or rng.random() < 0.2:
        return rng.choice([("c", rng.randrange(9)), ("s", rng.choice("ijn")), ("?", "x")])
    kind = rng.choice(["b", "u", "?:", "f", "ld"])
    if kind == "b":
        return ("b", rng.choice("+-*/"), _random_expr(rng, depth - 1), _random_expr(rng, depth - 1))
    if kind == "u":
        return ("u", "-", _random_expr(rng, depth - 1))
    if kind == "?:":
        return ("?:",) + tuple(_random_expr(rng, depth - 1) for _ in range(3))
    if kind == "f":
        return ("f", "min", tuple(_random_expr(rng, depth - 1) for _ in range(rng.randrange(4))))
    return ("ld", "x", _random_expr(rng, depth - 1))


def test_larger_than_is_size_compared():
    import random

    rng = random.Random(1)
    exprs = [_random_expr(rng, d) for d in range(10) for _ in range(60)]
    # shared subexpressions (counted where each occurs), and a spine deeper than the limits
    x = ("b", "+", ("s", "i"), ("c", 1))
    shared = ("b", "*", x, x)
    spine = ("s", "i")
    for _ in range(600):
        spine = ("b", "+", spine, ("c", 1))
    exprs += [shared, ("b", "-", shared, shared), spine]
    for e in exprs:
        n = S.size(e)
        for limit in {0, 1, 2, 3, n - 1, n, n + 1, 7, 400}:
            if limit >= 0:
                assert S.larger_than(e, limit) == (n > limit), (e, limit)


def test_evaluate_is_none_wherever_a_node_is_not_evaluable():
    import random

    rng = random.Random(2)
    # a scalar condition takes one side: the other may hold a load, an unknown or a call without
    # a model, and the whole expression is still not evaluable
    picks = [("s", "i"), ("s", "n"), ("c", 3), ("c", 0), ("?", "x"), ("ld", "a", ("s", "i")),
             ("f", "sinf", (("s", "i"),)), ("b", "**", ("s", "i"), ("c", 2)), ("u", "*", ("s", "i"))]

    def expr(depth):
        if depth == 0 or rng.random() < 0.25:
            return rng.choice(picks)
        k = rng.randrange(4)
        if k == 0:
            return ("b", rng.choice(["+", "-", "*", "/", "%", "<", "&&"]), expr(depth - 1), expr(depth - 1))
        if k == 1:
            return ("?:", rng.choice([("c", 1), ("c", 0), ("s", "n"), ("s", "i")]), expr(depth - 1), expr(depth - 1))
        if k == 2:
            return ("u", rng.choice("-!~"), expr(depth - 1))
        return ("f", "min", (expr(depth - 1), expr(depth - 1)))

    envs = [{"i": 5, "n": 0}, {"i": np.arange(4), "n": 7}, {"i": np.arange(-3, 3), "n": np.array([1, 0, 1, 0, 1, 0])}]
    seen = {True: 0, False: 0}
    for _ in range(3000):
        e = expr(rng.randrange(1, 6))
        for env in envs:
            v = S.evaluate(e, env)
            memo: dict = {}
            w = S.evaluate(e, env, memo)
            assert S.evaluate(e, env, memo) is w or np.array_equal(S.evaluate(e, env, memo), w)
            if not S.evaluable(e):
                assert v is None and w is None, e
            assert (v is None) == (w is None) and (v is None or np.array_equal(v, w)), e
            seen[v is None] += 1
    assert min(seen.values()) > 1000     # both outcomes were exercised


def test_weighted_sums_by_dot_are_matmuls_bits():
    # the models' weighted sums use ndarray.dot for `@` (cheaper to set up): the same 1-D loop
    rng = np.random.default_rng(3)
    for n in list(range(1, 70)) + [127, 128, 500, 4097]:
        w = rng.random(n) * rng.integers(1, 10_000)
        whole = rng.random(3 * n) * 37
        for x in (rng.random(n), rng.integers(0, 33, n), rng.random(n) < 0.5, whole[n:2 * n]):
            assert float(w.dot(x)) == float(w @ x)


def test_truth_is_compared_to_zero():
    values = [np.array([True, False]), np.arange(-2, 3), np.array([0.0, np.nan, -0.5]), np.array(True),
              np.array(3), True, 0, 7, np.bool_(False), np.int64(0), 2.5, np.arange(6).reshape(2, 3) < 3,
              np.logical_and(np.arange(4) > 0, np.arange(4) < 3)]
    for v in values:
        got, want = models._truth(v), np.asarray(v) != 0
        assert got.dtype == want.dtype == np.bool_ and got.shape == want.shape and np.array_equal(got, want), v
    # the shortcut is taken where it can be: a comparison's result comes back as it is
    b = np.arange(4) < 2
    assert models._truth(b) is b


def test_kind_table_names_every_node_as_its_type():
    """The walker reads `_KINDS[node.kind_id]` for `node.type` (access._kind_names): the same
    string for every node of real files, ERROR and MISSING nodes of broken code included."""
    from analyzer import access
    from analyzer.parse import _get_parser

    kinds = access._kind_names()
    broken = b"__global__ void k(float* a int n) { a[threadIdx.x] = ; for (int i = 0; i < n i++) { a[i] += 1.0f } }"
    seen, errors = 0, 0
    for text in [p.read_bytes() for p in SOURCES] + [broken]:
        stack = [_get_parser().parse(text).root_node]
        while stack:
            node = stack.pop()
            assert kinds[node.kind_id] == node.type, (node.kind_id, node.type)
            seen += 1
            errors += node.type == "ERROR" or node.is_missing
            stack.extend(node.children)
    assert seen > 1000 and errors > 0


def test_assignment_counts_are_the_regex_matches():
    """parse.assignment_counts (from the `=` signs back) counts what ASSIGNED's regex scan finds."""
    import collections
    import random

    from analyzer.parse import ASSIGNED, assignment_counts

    texts = [p.read_bytes() for p in SOURCES + sorted((ROOT / "rl" / "suites" / "c").rglob("*.cu"))]
    texts += [b"a=b", b"=a", b"a==b", b"a===b", b"a <<= 1; b>>=2; c <= d; e >= f; g != h; i < <= j",
              b"x.y = 1; p->q = 2; 3x = 4; _a1 += 2; k9 ^= 1", b"a =\n= b", b"a\t-=\nb", b"=", b"==", b"a << = b"]
    rng = random.Random(0)
    alphabet = b"ab_1 =<>!+-.\n*&|^%/\t"
    texts += [bytes(rng.choice(alphabet) for _ in range(rng.randint(0, 40))) for _ in range(5000)]
    for t in texts:
        assert assignment_counts(t) == dict(collections.Counter(m.group(1) for m in ASSIGNED.finditer(t))), t


def test_host_bodies_walk_only_what_launches_need(monkeypatch):
    """_Builder._inner leaves out the statements of a launching host function that hold no launch and
    declare nothing; the launches read are those of walking every node of the body."""
    from analyzer import parse as P

    host = """
__global__ void k(float* y, const float* x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i]; }
void run(float* y, const float* x) {
    const int n = 1 << 20;
    int threads = 256;
    for (int rep = 0; rep < 3; ++rep) { printf("%d\\n", rep); }
    if (n > 0) {
        dim3 block(threads);
        int blocks = (n + threads - 1) / threads;
        k<<<blocks, block, 0>>>(y, x, n);
    }
    std::vector<float> h(n);
    for (size_t i = 0; i < h.size(); ++i) h[i] = 0.5f * i;
    cudaLaunchKernel((void*)k, dim3(n / 128), dim3(128), nullptr, 0, 0);
}
"""
    texts = [host] + [p.read_text() for p in sorted((ROOT / "rl" / "suites" / "c").rglob("*.cu"))] + [
        p.read_text() for p in SOURCES]
    pruned = [P.parse(t, "x.cu") for t in texts]
    assert any(len(p.launches) >= 2 for p in pruned)
    monkeypatch.setattr(P._Builder, "_inner", lambda self, node, t, tparams: [(c, tparams, t) for c in reversed(node.children)])
    for t, p in zip(texts, pruned):
        full = P.parse(t, "x.cu")
        assert full.launches == p.launches and full.errors == p.errors, t[:200]
    assert pruned[0].launches[0].block == (256, 1, 1) and pruned[0].launches[0].grid == (4096, 1, 1)
