"""`lint --fix` and `lint --diff`: the edits findings carry, applied only where the file still
reads what the finding saw."""
from __future__ import annotations

import json
import stat

from analyzer.cli import main
from analyzer.fix import Edit, apply

KERNEL = """__device__ float half_of(float v) { return 0.5 * v * v; }
__global__ void gelu(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        y[i] = 0.5 * v * (1.0 + tanhf(0.7978845608 * v)) + half_of(v) * 1e-3 + 2.0L * v;
    }
}
__global__ void twice(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = half_of(x[i]);
}
"""
FIXED_LINE = "        y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * v)) + half_of(v) * 1e-3f + 2.0f * v;"


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_apply_replaces_whole_tokens_where_the_text_still_reads_them():
    data = b"a = 0.5 * x;\r\nb = 1.05 * y + 1.0;\n"
    out, applied = apply(data, [Edit(1, 5, "0.5", "0.5f"), Edit(2, 5, "1.0", "1.0f"),   # `1.05`: no token
                                Edit(2, 16, "1.0", "1.0f"), Edit(2, 16, "1.0", "1.0f"),  # twice: once
                                Edit(1, 6, "0.5", "0.5f"), Edit(9, 1, "x", "y"), Edit(1, 0, "a", "b")])
    assert out == b"a = 0.5f * x;\r\nb = 1.05 * y + 1.0f;\n"
    assert applied == [Edit(1, 5, "0.5", "0.5f"), Edit(2, 16, "1.0", "1.0f")]
    # an edit inside a token is none: `x10`'s `10`; one whose text ends in `(` may be followed by a name
    out, applied = apply(b"x10 = f(a);\n", [Edit(1, 2, "10", "11"), Edit(1, 7, "f(", "g(1, ")])
    assert out == b"x10 = g(1, a);\n" and applied == [Edit(1, 7, "f(", "g(1, ")]
    # two edits over the same bytes: the first by position wins
    out, applied = apply(b"x = 2.0;\n", [Edit(1, 5, "2.0", "2.0f"), Edit(1, 5, "2.0", "2.f")])
    assert out == b"x = 2.0f;\n" and len(applied) == 1
    # non-ASCII before the edit: columns are bytes, as tree-sitter counts them
    out, _ = apply("s = \"é\"; t = 0.5;\n".encode(), [Edit(1, 15, "0.5", "0.5f")])
    assert out == "s = \"é\"; t = 0.5f;\n".encode()


def test_fix_writes_the_file_keeps_its_mode_and_reports_what_is_left(tmp_path, capsys):
    src = tmp_path / "gelu.cu"
    src.write_text(KERNEL)
    src.chmod(0o640)
    code, out, err = run(["lint", "--isolated", "--select", "FP501", "--fix", str(src)], capsys)
    assert code == 0 and "All checks passed" in out, (out, err)
    assert "fixed 6 findings in 1 file" in err          # half_of's literal: one line for both kernels
    text = src.read_text()
    assert text.splitlines()[5] == FIXED_LINE and "0.5f * v * v" in text
    assert stat.S_IMODE(src.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["gelu.cu"]      # no temporary file left
    code, out, _ = run(["lint", "--isolated", "--select", "FP501", "--fix", str(src)], capsys)
    assert code == 0 and src.read_text() == text                     # nothing more to do


def test_diff_shows_the_fixes_and_changes_nothing(tmp_path, capsys):
    src = tmp_path / "gelu.cu"
    src.write_text(KERNEL)
    code, out, err = run(["lint", "--isolated", "--diff", str(src)], capsys)
    assert code == 1 and src.read_text() == KERNEL
    assert out.startswith(f"--- {src}\n+++ {src}\n@@ ")
    assert f"\n+{FIXED_LINE}\n" in out and out.count("\n+") == 3
    assert "6 fixes would change 1 file" in err
    code, out, _ = run(["lint", "--isolated", "--diff", "--exit-zero", str(src)], capsys)
    assert code == 0
    clean = tmp_path / "clean.cu"
    clean.write_text("__global__ void k(float* y) { y[threadIdx.x] = 1.0f; }\n")
    code, out, err = run(["lint", "--isolated", "--diff", str(clean)], capsys)
    assert (code, out) == (0, "") and "no fixes to apply" in err


def test_fix_leaves_alone_what_the_baseline_accepts_and_what_moved(tmp_path, capsys):
    src = tmp_path / "gelu.cu"
    src.write_text(KERNEL)
    base = tmp_path / "base.json"
    run(["lint", "--isolated", "--write-baseline", str(base), str(src)], capsys)
    code, out, err = run(["lint", "--isolated", "--baseline", str(base), "--fix", str(src)], capsys)
    assert code == 0 and src.read_text() == KERNEL and "fixed" not in err
    # a finding whose text is no longer where it was (the file changed since): no edit
    lines = KERNEL.splitlines(keepends=True)
    moved = tmp_path / "moved.cu"
    moved.write_text(KERNEL)
    from analyzer.lint import lint_source
    edits = [e for f in lint_source(KERNEL, str(moved)).findings for e in f.fix]
    shifted = "".join(lines[:5]) + "  " + "".join(lines[5:])
    out, applied = apply(shifted.encode(), edits)
    assert {e.line for e in applied} == {1} and out.decode().splitlines()[5] == "  " + lines[5].rstrip("\n")


def test_fix_in_inline_cuda_of_a_python_file(tmp_path, capsys):
    py = tmp_path / "solution.py"
    cuda = KERNEL.split("__global__ void twice")[1].replace("y[i] = half_of(x[i]);", "y[i] = x[i] * 0.1 + 1.0;")
    py.write_text(f'from torch.utils.cpp_extension import load_inline\ncuda_src = """\n__global__ void twice{cuda}"""\n'
                  'mod = load_inline("m", cpp_sources="", cuda_sources=cuda_src)\n')
    code, out, err = run(["lint", "--isolated", "--select", "FP501", "--fix", str(py)], capsys)
    assert code == 0 and "fixed 2 findings in 1 file" in err, (out, err)
    assert "    if (i < n) y[i] = x[i] * 0.1f + 1.0f;\n" in py.read_text()


def test_an_unwritable_file_is_its_error_and_the_others_are_fixed(tmp_path, capsys, monkeypatch):
    from analyzer import fix

    real = fix.write_atomically

    def refuse(path, data):
        if path.name == "a.cu":
            raise PermissionError(13, "Permission denied")
        real(path, data)

    monkeypatch.setattr(fix, "write_atomically", refuse)
    (tmp_path / "a.cu").write_text(KERNEL)
    other = tmp_path / "b.cu"
    other.write_text(KERNEL)
    code, out, err = run(["lint", "--isolated", "--select", "FP501", "--fix", str(tmp_path / "a.cu"), str(other)],
                         capsys)
    assert code == 2 and "a.cu: error: cannot fix: Permission denied" in err
    assert (tmp_path / "a.cu").read_text() == KERNEL and other.read_text().splitlines()[5] == FIXED_LINE
    assert out.count("FP501") == 6 and "fixed 6 findings in 1 file" in err      # a.cu's are still reported


def test_fix_and_write_baseline_do_not_go_together(tmp_path, capsys):
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    code, _, err = run(["lint", "--isolated", "--fix", "--write-baseline", str(tmp_path / "b.json"), str(src)], capsys)
    assert code == 2 and "--write-baseline" in err and src.read_text() == KERNEL


def test_json_and_rules_say_what_is_fixable(tmp_path, capsys):
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    code, out, _ = run(["lint", "--isolated", "--format", "json", "--select", "FP501", str(src)], capsys)
    findings = json.loads(out)["files"][0]["findings"]
    assert findings and all(f["fix"] and f["fix"][0]["new"].endswith("f") for f in findings)
    code, out, _ = run(["rules", "--format", "json"], capsys)
    fixable = {r["code"] for r in json.loads(out) if r["fixable"]}
    assert fixable == {"FP501", "CP701", "SY302", "CP706"}
    code, out, _ = run(["rules", "--explain", "FP501"], capsys)
    assert "lint --fix" in out


def test_a_fix_where_the_message_spans_lines_and_after_a_macro_the_pre_pass_expanded(tmp_path, capsys):
    """The finding's quoted code on several lines (its message made one line) and a line whose
    columns the pre-pass moved (a function-like macro expanded before the literal) keep their fix."""
    src = tmp_path / "k.cu"
    src.write_text("#define AT(p, i) p[(i)]\n"
                   "__global__ void k(const float* a, float* y, int n) {\n"
                   "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "    if (i >= n) return;\n"
                   "    y[i] = 0.1 * (a[i] +\n"
                   "                   a[i + 1]);\n"
                   "    y[i + n] = AT(a, i) * AT(a, i + 1) * 0.1;\n"
                   "}\n")
    code, out, err = run(["lint", "--isolated", "--select", "FP501", "--fix", str(src)], capsys)
    assert code == 0 and "fixed 2 findings in 1 file" in err, (out, err)
    lines = src.read_text().splitlines()
    assert lines[4] == "    y[i] = 0.1f * (a[i] +" and lines[6] == "    y[i + n] = AT(a, i) * AT(a, i + 1) * 0.1f;"


def test_a_device_functions_finding_is_one_line_and_sarif_carries_the_fix(tmp_path, capsys):
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    _, out, _ = run(["lint", "--isolated", "--select", "FP501", str(src)], capsys)
    assert out.count(":1:44: FP501") == 1 and "Found 6 findings" in out
    _, out, _ = run(["lint", "--isolated", "--select", "FP501", "--format", "json", str(src)], capsys)
    assert sorted(f["kernel"] for f in json.loads(out)["files"][0]["findings"] if f["line"] == 1) == ["gelu", "twice"]
    _, out, _ = run(["lint", "--isolated", "--select", "FP501", "--format", "sarif", str(src)], capsys)
    results = json.loads(out)["runs"][0]["results"]
    fix = next(r["fixes"][0] for r in results if r["locations"][0]["physicalLocation"]["region"]["startLine"] == 6)
    (change,) = fix["artifactChanges"]
    (rep,) = change["replacements"]
    assert change["artifactLocation"]["uri"].endswith("k.cu")
    assert rep == {"deletedRegion": {"startLine": 6, "startColumn": 16, "endLine": 6, "endColumn": 19},
                   "insertedContent": {"text": "0.5f"}}
