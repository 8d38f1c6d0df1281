"""The def-use graph the walker builds, and its networkx form."""
from __future__ import annotations

import networkx as nx

from analyzer.access import analyze
from analyzer.parse import parse

SRC = """__global__ void k(float* a, const float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = 2.0f * b[i];
}
"""


def test_to_networkx_has_every_node_edge_and_access_attribute():
    program = parse(SRC)
    ka = analyze(program, program.kernels[0])
    g = ka.graph.to_networkx()
    assert set(g.nodes) == set(ka.graph.succ)
    assert set(g.edges) == {(a, b) for a, bs in ka.graph.succ.items() for b in bs}
    # the load is walked before the store it feeds
    assert g.nodes["access#0"] == {"array": "b", "space": "global", "kind": "load", "line": 4}
    assert g.nodes["access#1"] == {"array": "a", "space": "global", "kind": "store", "line": 4}
    # both addresses depend on the thread through i
    for node in ("access#0", "access#1"):
        assert nx.has_path(g, "threadIdx.x", node)
        assert not nx.has_path(g, "n", node)


def test_a_lambda_is_walked_where_it_is_called_with_its_arguments():
    """`auto load = [&](int stage, int k0) {...}; load(0, 0); ... load(s, k0 + 32);`: the body's
    accesses take the call's arguments (they took nothing: its parameters were unknown, 4096, and
    a load of a contiguous row was estimated at 1 sector a request); a lambda never called does
    nothing."""
    from analyzer.lint import LaunchSpec, lint_source

    src = """__global__ void k(const float* __restrict__ x, float* out, int n) {
    __shared__ float buf[2][256];
    auto load = [&](int stage, int k0) { buf[stage][threadIdx.x] = x[k0 + threadIdx.x]; };
    auto unused = [&](int j) { out[j * 64] = 1.0f; };
    float acc = 0.0f;
    load(0, 0);
    for (int k0 = 0; k0 < n; k0 += 256) {
        __syncthreads();
        if (k0 + 256 < n) load(1, k0 + 256);
        acc += buf[0][threadIdx.x];
    }
    out[blockIdx.x * 256 + threadIdx.x] = acc;
}
"""
    r = lint_source(src, "k.cu", launches={"k": LaunchSpec((256, 1, 1), (1, 1, 1), args={"n": 1024})})
    ctx = r.contexts[0]
    pairs = list(zip(ctx.accesses.accesses, ctx.estimates))
    loads = [(a, e) for a, e in pairs if a.array == "x"]
    assert len(loads) == 2 and all(e is not None and e.per_request == 4.0 and not e.assumed for _, e in loads)
    assert not [a for a, _ in pairs if a.array == "out" and "j * 64" in a.text]


def test_a_dereferenced_increment_is_an_access_and_the_pointer_moves():
    """`v = *p++` and `acc += *p++` in a loop (exllama's `*x_ptr++`, mxnet's `*(ptr++) = ...`): the
    load was not recorded at all (a surrogate saw no reads and predicted the kernel ~70x faster),
    and the loop-carried pointer went opaque. Now each is the access `p; p++;` is: p at the
    iteration's start, one element further each pass."""
    from analyzer.lint import LaunchSpec, lint_source

    body = """__global__ void k(const float* __restrict__ x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float* p = x + i * 64;
    float acc = 0.0f;
    for (int k = 0; k < 64; ++k) {
        LOAD
    }
    float* q = y + i * 2;
    STORE
}
"""
    launch = {"k": LaunchSpec((256, 1, 1), (64, 1, 1))}
    est = {}
    for how, load, store in (("statement", "acc += *p; p++;", "*q = acc; q++; *q = 0.0f;"),
                             ("post", "acc += *p++;", "*q++ = acc; *q = 0.0f;"),
                             ("declared", "float v = *p++; acc += v;", "*(q++) = acc; *q = 0.0f;")):
        r = lint_source(body.replace("LOAD", load).replace("STORE", store), "k.cu", launches=launch)
        ctx = r.contexts[0]
        pairs = [(a.array, a.kind, e.per_request if e else None, [lp.var for lp in a.loops])
                 for a, e in zip(ctx.accesses.accesses, ctx.estimates)]
        est[how] = pairs
    assert est["post"] == est["statement"] == est["declared"], est
    assert est["post"] == [("x", "load", 32.0, ["k@5"]), ("y", "store", 8.0, []), ("y", "store", 8.0, [])]
