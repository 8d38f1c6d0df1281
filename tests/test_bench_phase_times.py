"""bench/phase_times.py times the lint's phases by wrapping module globals: the wrapped run must
give what the plain one gives, and every wrapper must be gone afterwards."""
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import phase_times  # noqa: E402

from analyzer import lint as L  # noqa: E402
from analyzer import parse as P  # noqa: E402


def _findings(src):
    r = L.lint_source(src, "k.cu")
    return [(f.code, f.line, f.col, f.message) for f in r.findings], [k.name for k in r.kernels]


def test_timed_lint_gives_the_same_findings_and_is_undone():
    src = (ROOT / "analyzer" / "examples" / "transpose.cu").read_text()
    before = {a: getattr(L, a) for a in ("parse", "analyze", "prepare_estimates", "summarize")}
    tree = P._parse_tree
    plain = _findings(src)
    parser = P._get_parser()
    acc = collections.Counter()
    rules, order, undo = phase_times._instrument(acc)
    try:
        r = L.lint_source(src, "k.cu", rules=rules)
        timed = ([(f.code, f.line, f.col, f.message) for f in r.findings], [k.name for k in r.kernels])
    finally:
        undo()
    assert timed == plain and plain[0]
    assert {a: getattr(L, a) for a in before} == before
    assert P._PARSER is parser and P._parse_tree is tree
    # every phase the lint went through was timed, and the nested ones within their parent
    assert acc["  tree-sitter parse"] > 0 and acc["access walk (access.analyze)"] > 0 and acc["rules"] > 0
    assert acc["  tree-sitter parse"] <= acc["parse (pre-pass, tree-sitter, parse model)"]
    assert all(name in order for name in acc)


def test_lint_phases_table_adds_up():
    out = phase_times.lint_phases(passes=1, min_files=3)
    top = [r for r in out["phases"] if r["depth"] == 0]
    assert abs(sum(r["share"] for r in top) - 1.0) < 1e-9    # "(everything else)" closes the sum
    assert all(r["share"] >= 0 for r in top[:-1])
