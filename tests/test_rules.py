"""Every rule against its fixture: tests/fixtures/rules/CODE.cu marks the expected findings
with `// expect: CODE` on the reported line; nothing else in the file may be reported."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from analyzer.lint import LintSettings, lint_source
from analyzer.rules import all_rules, select

FIXTURES = Path(__file__).parent / "fixtures" / "rules"
RULES = all_rules()
EXPECT = re.compile(r"//\s*expect:\s*([A-Z]+\d+)")


def expected_lines(text: str, code: str) -> set[int]:
    return {n for n, line in enumerate(text.splitlines(), 1) for m in EXPECT.finditer(line) if m.group(1) == code}


def findings(code: str, ptxas: bool = False):
    text = (FIXTURES / f"{code}.cu").read_text()
    res = lint_source(text, f"{code}.cu", rules=select(RULES, [code], []), settings=LintSettings(ptxas=ptxas))
    return text, res


def test_every_rule_has_a_fixture_and_a_doc():
    for code, r in RULES.items():
        assert (FIXTURES / f"{code}.cu").is_file(), f"no fixture for {code}"
        for part in ("What it does", "Why is this bad?", "Example", "Use instead"):
            assert part in r.doc, f"{code} doc lacks '{part}'"
        assert r.severity in ("error", "warning", "info")
    assert len(RULES) >= 12


@pytest.mark.parametrize("code", [c for c in RULES if c != "OC602"])
def test_rule_fixture(code):
    text, res = findings(code)
    want = expected_lines(text, code)
    got = {f.line for f in res.findings if f.code == code}
    assert want, f"fixture {code}.cu marks no expected finding"
    assert got == want, "\n".join(f"{f.line}: {f.message}" for f in res.findings)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc for ptxas figures")
def test_register_spills_with_ptxas(tmp_path, monkeypatch):
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path))
    text, res = findings("OC602", ptxas=True)
    got = {f.line for f in res.findings if f.code == "OC602"}
    assert got == expected_lines(text, "OC602"), res.notes
    spill = next(f for f in res.findings if f.code == "OC602")
    assert spill.estimate["spill_stores"] > 0


def test_spills_silent_without_ptxas():
    _, res = findings("OC602", ptxas=False)
    assert not [f for f in res.findings if f.code == "OC602"]


def test_findings_carry_the_estimate_behind_them():
    _, res = findings("GM102")
    f = next(f for f in res.findings if f.line == 5)
    assert f.estimate["sectors_per_request"] == 32 and f.estimate["ideal_sectors_per_request"] == 4
    assert "32 sectors/request, ideal 4" in f.message


def test_selection_by_prefix_and_ignore():
    assert set(select(RULES, ["GM"], [])) == {c for c in RULES if c.startswith("GM")}
    assert "GM103" not in select(RULES, ["GM"], ["GM103"])
    with pytest.raises(ValueError):
        select(RULES, ["XX9"], [])


def test_findings_at_one_place_sort_by_kernel_too():
    """Two kernels' findings at one place (a device function both call) come out in one order,
    whatever order the rules produced them in (set iteration order changes from run to run)."""
    from analyzer.rules import Finding

    a, b = (Finding("DV401", "n", "warning", "m", "f.cu", 3, 5, kernel=k) for k in ("alpha", "beta"))
    assert sorted([b, a], key=Finding.sort_key) == sorted([a, b], key=Finding.sort_key) == [a, b]
