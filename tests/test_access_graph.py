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
