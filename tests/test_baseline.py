"""A baseline of accepted findings (analyzer/baseline.py; --write-baseline, --baseline, config)."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from analyzer.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "analyzer" / "examples"
STRIDED = "__global__ void nk(float* o, int n) { o[threadIdx.x * 2] = 1.0f; }\n"


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def repo(tmp_path):
    for f in EXAMPLES.glob("*.cu"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path


def test_write_then_lint_against_the_baseline_reports_only_new_findings(tmp_path, capsys, monkeypatch):
    root = repo(tmp_path)
    monkeypatch.chdir(root)
    code, _, err = run(["lint", "--isolated", "--write-baseline", "base.json", "."], capsys)
    assert code == 0 and "wrote 15 findings of 3 files to base.json" in err
    code, out, _ = run(["lint", "--isolated", "--baseline", "base.json", "."], capsys)
    assert code == 0 and out.strip() == "All checks passed (3 files; 15 more accepted by the baseline)."
    # lines added above the old findings do not make them new; a new finding is reported
    text = (root / "transpose.cu").read_text()
    (root / "transpose.cu").write_text("// moved down a line\n" + text + STRIDED)
    code, out, _ = run(["lint", "--isolated", "--baseline", "base.json", "."], capsys)
    assert code == 1
    assert [l.split(": ")[1].split()[0] for l in out.splitlines()[:-1]] == ["GM102"]
    assert "o[threadIdx.x * 2]" in out and "15 more accepted" in out
    # editing an accepted finding's line makes it new (whoever touches it sees it)
    edited = (root / "transpose.cu").read_text().replace("out[x * n + (y + j)]", "out[x * n + (j + y)]")
    (root / "transpose.cu").write_text(edited)
    code, out, _ = run(["lint", "--isolated", "--baseline", "base.json", "--format", "json", "."], capsys)
    data = json.loads(out)
    new = [f["message"] for r in data["files"] for f in r["findings"]]
    assert len(new) == 2 and any("(j + y)" in m for m in new) and data["baselined"] == 14


def test_each_entry_accepts_as_many_findings_as_it_counts(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.cu").write_text(STRIDED)
    assert run(["lint", "--isolated", "--write-baseline", "b.json", "k.cu"], capsys)[0] == 0
    (tmp_path / "k.cu").write_text(STRIDED + STRIDED.replace("nk", "nk2"))
    code, out, _ = run(["lint", "--isolated", "--baseline", "b.json", "k.cu"], capsys)
    assert code == 1 and "Found 1 finding in 1 file; 1 more accepted" in out     # another kernel: new


def test_the_config_names_the_baseline_relative_to_itself(tmp_path, capsys, monkeypatch):
    root = repo(tmp_path)
    (root / ".cudaperf.toml").write_text('baseline = "ci/accepted.json"\n')
    (root / "ci").mkdir()
    monkeypatch.chdir(root)
    assert run(["lint", "--write-baseline", "ci/accepted.json", "."], capsys)[0] == 0
    monkeypatch.chdir(root / "ci")                        # another working directory: same answer
    code, out, _ = run(["lint", ".."], capsys)
    assert code == 0 and "15 more accepted by the baseline" in out


def test_a_missing_or_foreign_baseline_is_a_usage_error(tmp_path, capsys, monkeypatch):
    root = repo(tmp_path)
    monkeypatch.chdir(root)
    code, _, err = run(["lint", "--isolated", "--baseline", "none.json", "."], capsys)
    assert code == 2 and "baseline file not found: none.json" in err
    (root / "x.json").write_text('{"version": 7, "findings": []}')
    code, _, err = run(["lint", "--isolated", "--baseline", "x.json", "."], capsys)
    assert code == 2 and "not a baseline file of version 1" in err
    (root / "y.json").write_text("[1, 2")
    code, _, err = run(["lint", "--isolated", "--baseline", "y.json", "."], capsys)
    assert code == 2 and "y.json: not a baseline file" in err and len(err.strip().splitlines()) == 1
