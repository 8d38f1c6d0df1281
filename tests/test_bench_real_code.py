"""bench/real_code.py lints a folder of CUDA files as the CLI does and writes aggregates: run on the
project's examples, its counts must be those of the lint itself."""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import real_code  # noqa: E402

from analyzer.lint import lint_source  # noqa: E402


def test_the_counts_are_the_lint_s(tmp_path, capsys):
    examples = ROOT / "analyzer" / "examples"
    (tmp_path / "lib").mkdir()
    for f in sorted(examples.glob("*.cu"))[:3]:
        (tmp_path / "lib" / f.name).write_bytes(f.read_bytes())
    (tmp_path / "lib" / "notes.txt").write_text("not CUDA")
    out = tmp_path / "r.json"
    assert real_code.main([str(tmp_path), "--out", str(out)]) == 0
    d = json.loads(out.read_text())
    files = sorted((tmp_path / "lib").glob("*.cu"))
    assert d["files"] == 3 and d["folders"] == {"lib": 3} and not d["internal_errors"]
    expected = [lint_source(f.read_text(), str(f)) for f in files]
    assert d["kernels"] == sum(len(r.kernels) for r in expected)
    assert sum(d["findings_per_rule"].values()) == sum(len(r.findings) for r in expected)
    assert [p["path"] for p in d["per_file"]] == [f"lib/{f.name}" for f in files]
    assert "kernels analyzed" in capsys.readouterr().out


def test_a_missing_folder_is_a_clear_error(tmp_path):
    import pytest

    with pytest.raises(SystemExit, match="no such file or folder"):
        real_code.main([str(tmp_path / "nope")])


def test_the_register_comparison_pairs_each_compiled_kernel_with_its_estimate(tmp_path, monkeypatch, capsys):
    """bench/real_code_registers.py on the project's examples, which compile alone: every kernel is
    compared, the estimate being the plain lint's and the count ptxas's."""
    import shutil

    import pytest

    if shutil.which("nvcc") is None:
        pytest.importorskip("cuda.bindings.nvrtc")
    import real_code_registers

    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path / "cache"))
    src = ROOT / "analyzer" / "examples" / "transpose.cu"
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / src.name).write_bytes(src.read_bytes())
    out = tmp_path / "r.json"
    assert real_code_registers.main([str(tmp_path / "lib"), "--out", str(out)]) == 0
    d = json.loads(out.read_text())
    plain = lint_source(src.read_text(), str(src)).kernels
    assert d["summary"]["kernels"] == len(plain) == len(d["per_kernel"]) and d["files_compiled"] == 1
    assert [p["estimate"] for p in d["per_kernel"]] == [k.registers for k in plain]
    assert all(p["source"].startswith("ptxas") and p["ptxas"] > 0 for p in d["per_kernel"])
    assert "kernels compared" in capsys.readouterr().out
