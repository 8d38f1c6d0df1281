"""The command line: formats, exit codes, bad input, config, suppressions, inline CUDA in Python."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from analyzer.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "analyzer" / "examples"
BAD = """__global__ void t(const float* in, float* out, int n) {
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  if (x < n && y < n) out[x * n + y] = in[y * n + x];
}
"""
GOOD = """__global__ void c(const float4* in, float4* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
"""
LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d+) (?P<msg>.+)$")


def run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    (tmp_path / "bad.cu").write_text(BAD)
    (tmp_path / "good.cu").write_text(GOOD)
    return tmp_path


def test_text_format_and_exit_codes(files, capsys):
    code, out, err = run(["lint", "--isolated", str(files / "bad.cu")], capsys)
    assert code == 1
    lines = [l for l in out.splitlines() if LINE.match(l)]
    assert lines and all(LINE.match(l).group("path").endswith("bad.cu") for l in lines)
    assert any(LINE.match(l).group("code") == "GM102" and LINE.match(l).group("line") == "4" for l in lines)
    code, out, _ = run(["lint", "--isolated", str(files / "good.cu")], capsys)
    assert code == 0 and "All checks passed" in out
    code, _, _ = run(["lint", "--isolated", "--exit-zero", str(files / "bad.cu")], capsys)
    assert code == 0


def test_json_format(files, capsys):
    code, out, _ = run(["lint", "--isolated", "--format", "json", str(files)], capsys)
    doc = json.loads(out)
    assert code == 1 and doc["errors"] == []
    by_path = {Path(f["path"]).name: f for f in doc["files"]}
    bad = by_path["bad.cu"]
    f = next(f for f in bad["findings"] if f["code"] == "GM102")
    assert f["estimate"]["sectors_per_request"] == 32 and f["line"] == 4 and f["kernel"] == "t"
    assert bad["kernels"][0]["global_store_sectors_per_request"] == 32
    assert by_path["good.cu"]["findings"] == []


def test_sarif_is_valid_2_1_0(files, capsys):
    code, out, _ = run(["lint", "--isolated", "--format", "sarif", str(files)], capsys)
    doc = json.loads(out)
    assert doc["version"] == "2.1.0" and "sarif" in doc["$schema"]
    (run_,) = doc["runs"]
    driver = run_["tool"]["driver"]
    ids = [r["id"] for r in driver["rules"]]
    assert driver["name"] == "cudaperf" and len(ids) == len(set(ids)) >= 12
    for r in driver["rules"]:
        assert r["shortDescription"]["text"] and r["defaultConfiguration"]["level"] in ("error", "warning", "note")
    assert run_["results"]
    for res in run_["results"]:
        assert res["ruleId"] in ids and ids[res["ruleIndex"]] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note") and res["message"]["text"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"].endswith(".cu")
        assert loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] >= 1


def test_select_ignore_and_explain(files, capsys):
    _, out, _ = run(["lint", "--isolated", "--select", "SM", str(files / "bad.cu")], capsys)
    assert "GM102" not in out
    _, out, _ = run(["lint", "--isolated", "--ignore", "GM102,GM104", str(files / "bad.cu")], capsys)
    assert "GM102" not in out
    code, _, err = run(["lint", "--isolated", "--select", "ZZ1", str(files / "bad.cu")], capsys)
    assert code == 2 and "unknown rule" in err and "\n" == err[-1] and err.count("\n") == 1
    code, out, _ = run(["rules", "--explain", "SM201"], capsys)
    assert code == 0 and "Use instead" in out and "tile[32][33]" in out
    code, out, _ = run(["rules"], capsys)
    assert code == 0 and len(out.splitlines()) >= 12
    code, _, err = run(["explain", "NOPE1"], capsys)
    assert code == 2 and err.startswith("error: unknown rule")


def test_bad_inputs_each_get_one_line_and_other_files_still_report(tmp_path, capsys):
    (tmp_path / "bad.cu").write_text(BAD)
    (tmp_path / "binary.cu").write_bytes(b"\x7fELF\x00\x00\x01" * 100)
    (tmp_path / "latin1.cu").write_bytes("// caf\xe9\n__global__ void k() {}\n".encode("latin-1"))
    (tmp_path / "empty.cu").write_text("")
    empty_dir = tmp_path / "nothing"
    empty_dir.mkdir()
    (empty_dir / "notes.txt").write_text("hi")
    argv = ["lint", "--isolated", str(tmp_path / "bad.cu"), str(tmp_path / "binary.cu"), str(tmp_path / "latin1.cu"),
            str(tmp_path / "empty.cu"), str(tmp_path / "missing.cu"), str(empty_dir)]
    code, out, err = run(argv, capsys)
    assert code == 2
    assert "GM102" in out  # the good file's results are still there
    assert out.strip().splitlines()[-1].endswith("; 4 paths not linted (errors above).")
    err_lines = err.strip().splitlines()
    assert any("binary.cu: error: binary file" in l for l in err_lines)
    assert any("latin1.cu: error: not UTF-8: byte 0xe9 at line 1" in l for l in err_lines)
    assert any("missing.cu: error: no such file or directory" in l for l in err_lines)
    assert any("nothing: error: no CUDA files" in l for l in err_lines)
    assert any("empty.cu: note: empty file" in l for l in err_lines)
    assert all("Traceback" not in l for l in err_lines)
    # nothing linted is no "All checks passed"
    code, out, err = run(["lint", "--isolated", str(tmp_path / "missing.cu")], capsys)
    assert code == 2 and out.strip() == "No findings in 0 files; 1 path not linted (errors above)."


def test_usage_errors(capsys, files):
    assert run(["lint"], capsys)[0] == 2
    assert run(["lint", "--isolated", "--block", "0,1", str(files)], capsys)[0] == 2
    assert run(["lint", "--isolated", "--arg", "n", str(files)], capsys)[0] == 2
    assert run(["lint", "--isolated", "--arch", "sm_1000", str(files)], capsys)[0] == 2
    assert run([], capsys)[0] == 2
    for flag, value in (("--block", "2048"), ("--block", "64,32"), ("--block", str(10 ** 30)),
                        ("--grid", "1,70000"), ("--grid", str(1 << 40))):
        code, _, err = run(["lint", "--isolated", flag, value, str(files)], capsys)
        assert code == 2 and "beyond CUDA's limits" in err and "internal error" not in err
    assert run(["lint", "--isolated", "--block", "1024", "--grid", "2147483647,65535", str(files)], capsys)[0] == 1


def test_oversized_file_is_refused_with_a_clear_line(tmp_path, capsys):
    big = tmp_path / "big.cu"
    big.write_text(GOOD * 10)
    code, _, err = run(["lint", "--isolated", "--max-file-size", "100", str(big)], capsys)
    assert code == 2 and "over the" in err and "--max-file-size" in err


@pytest.mark.slow
def test_five_megabyte_generated_file(tmp_path, capsys):
    """A generated 5 MB file is linted in full (no crash, bounded time, findings at the right lines)."""
    body = []
    size = 0
    i = 0
    while size < 5_000_000:
        chunk = BAD.replace("void t(", f"void t{i}(") + "// " + "x" * 400 + "\n"
        body.append(chunk)
        size += len(chunk)
        i += 1
    path = tmp_path / "generated.cu"
    path.write_text("".join(body))
    start = time.perf_counter()
    code, out, err = run(["lint", "--isolated", "--select", "GM102", str(path)], capsys)
    elapsed = time.perf_counter() - start
    assert code == 1, err
    assert out.count("GM102") == i
    assert elapsed < 300  # a sanity bound for a hung run, not a benchmark


def test_config_file_is_found_and_applied(tmp_path, capsys):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".cudaperf.toml").write_text('ignore = ["GM104"]\nexclude = ["vendor/*"]\n[per-file-ignores]\n"legacy_*.cu" = ["GM102"]\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.cu").write_text(BAD)
    (tmp_path / "src" / "legacy_b.cu").write_text(BAD)
    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "c.cu").write_text(BAD)
    code, out, _ = run(["lint", str(tmp_path)], capsys)
    assert "a.cu" in out and "GM102" in out
    assert "legacy_b.cu:4" not in out
    assert "vendor" not in out
    (tmp_path / ".cudaperf.toml").write_text('colour = "red"\n')
    code, _, err = run(["lint", str(tmp_path)], capsys)
    assert code == 2 and "unknown key" in err


def test_pyproject_tool_section(tmp_path, capsys):
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.cudaperf]\nselect = ["SM"]\n')
    (tmp_path / "a.cu").write_text(BAD)
    code, out, _ = run(["lint", str(tmp_path / "a.cu")], capsys)
    assert code == 0 and "GM102" not in out


def test_inline_suppressions(tmp_path, capsys):
    src = BAD.replace("in[y * n + x];", "in[y * n + x];  // NOLINT(GM102)")
    (tmp_path / "a.cu").write_text(src)
    _, out, _ = run(["lint", "--isolated", "--select", "GM102", str(tmp_path / "a.cu")], capsys)
    assert "GM102" not in out
    src = BAD.replace("  if (x < n", "  // NOLINTNEXTLINE(GM)\n  if (x < n")
    (tmp_path / "b.cu").write_text(src)
    _, out, _ = run(["lint", "--isolated", "--select", "GM102", str(tmp_path / "b.cu")], capsys)
    assert "GM102" not in out
    (tmp_path / "c.cu").write_text("// cudaperf: ignore-file[GM102]\n" + BAD)
    _, out, _ = run(["lint", "--isolated", "--select", "GM102", str(tmp_path / "c.cu")], capsys)
    assert "GM102" not in out
    (tmp_path / "d.cu").write_text(BAD.replace("in[y * n + x];", "in[y * n + x];  // cudaperf: ignore[SM201]"))
    _, out, _ = run(["lint", "--isolated", "--select", "GM102", str(tmp_path / "d.cu")], capsys)
    assert "GM102" in out  # a different code is not silenced


PY = '''import torch
from torch.utils.cpp_extension import load_inline

cuda_src = """
#include <torch/extension.h>
__global__ void transpose(const float* in, float* out, int n) {
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  if (x < n && y < n) out[x * n + y] = in[y * n + x];
}
torch::Tensor run(torch::Tensor a) {
  auto out = torch::empty_like(a);
  int n = a.size(0);
  dim3 block(32, 8);
  dim3 grid(n / 32, n / 32);
  transpose<<<grid, block>>>(a.data_ptr<float>(), out.data_ptr<float>(), n);
  return out;
}
"""
mod = load_inline(name="t", cpp_sources="torch::Tensor run(torch::Tensor a);", cuda_sources=[cuda_src], functions=["run"])
'''


def test_python_files_with_load_inline(tmp_path, capsys):
    path = tmp_path / "solution.py"
    path.write_text(PY)
    code, out, _ = run(["lint", "--isolated", "--select", "GM102", str(path)], capsys)
    assert code == 1
    m = next(LINE.match(l) for l in out.splitlines() if LINE.match(l))
    py_line = int(m.group("line"))
    assert PY.splitlines()[py_line - 1].strip().startswith("if (x < n && y < n) out[x * n + y]")
    col = int(m.group("col"))
    assert PY.splitlines()[py_line - 1][col - 1:].startswith("out[x * n + y]")
    assert "block 32x8x1 from the launch at line" in m.group("msg")
    (tmp_path / "broken.py").write_text("def (:\n")
    code, _, err = run(["lint", "--isolated", str(tmp_path / "broken.py")], capsys)
    assert code == 2 and "Python does not parse" in err


FSTRING_PY = """from torch.utils.cpp_extension import load_inline
BLOCK, N = 256, 2
kernel = f\"\"\"
__global__ void add(const float* a, float* c, int n) {{
    int i = blockIdx.x * {BLOCK} + threadIdx.x;
    if (i < n) c[i * 2] = a[i];
}}
__global__ void add3(const float* a, float* c) {{ c[threadIdx.x * {N + 1}] = a[threadIdx.x]; }}
\"\"\"
mod = load_inline("m", cpp_sources="", cuda_sources=kernel + "// host")
other = load_inline("o", cpp_sources="", cuda_sources=open("k.cu").read())
"""


def test_python_f_strings_concatenations_and_what_is_not_linted(tmp_path, capsys):
    """An f-string kernel (`{{` and `{BLOCK}` rendered as Python would: BLOCK = 256 in the module)
    and a `kernel + "..."` concatenation are linted; CUDA the file does not spell out (read from a
    file) gets a note, and so does a named .py file with no CUDA at all (both passed silently)."""
    path = tmp_path / "solution.py"
    path.write_text(FSTRING_PY)
    code, out, err = run(["lint", "--isolated", "--select", "GM102", str(path)], capsys)
    assert code == 1
    found = {(int(m.group("line")), int(m.group("col"))): m.group("msg") for m in map(LINE.match, out.splitlines()) if m}
    assert "8 sectors/request" in found[(6, 16)]                      # `c[i * 2]` in the .py file
    assert "c[threadIdx.x * 3]" in out          # `{N + 1}`: Python's value, not `N + 1` in the text
    assert f"{path}:11: note: load_inline(...) takes CUDA this file does not spell out" in err
    (tmp_path / "plain.py").write_text("x = 1\n")
    code, out, err = run(["lint", "--isolated", str(tmp_path / "plain.py")], capsys)
    assert code == 0 and "no CUDA found" in err
    (tmp_path / "__init__.py").write_text("")
    code, out, err = run(["lint", "--isolated", "--python", str(tmp_path)], capsys)
    assert "no CUDA found" not in err                                # found in a directory: no note
    assert "empty file" not in err                                   # nor for an empty __init__.py
    code, out, err = run(["lint", "--isolated", str(tmp_path / "__init__.py")], capsys)
    assert "__init__.py: note: empty file" in err                    # named: it says so


def test_module_entry_point_runs_in_a_fresh_process(files):
    proc = subprocess.run([sys.executable, "-m", "analyzer", "lint", "--isolated", str(files / "bad.cu")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "GM102" in proc.stdout


def test_examples_show_estimates(capsys):
    code, out, _ = run(["lint", "--isolated", "--show-estimates", str(EXAMPLES)], capsys)
    assert code == 1
    assert "kernel transpose_padded" in out and "shared 1.0/1.0 wavefronts/req" in out
    assert "kernel transpose_shared" in out and "shared 32.0/1.0" in out


def test_ptxas_flag_reports_measured_registers(capsys, tmp_path, monkeypatch):
    import shutil
    if shutil.which("nvcc") is None:
        try:
            import cuda.bindings.nvrtc  # noqa: F401
        except ImportError:
            pytest.skip("no NVRTC and no nvcc")
    monkeypatch.setenv("CUDAPERF_CACHE", str(tmp_path))
    code, out, err = run(["lint", "--isolated", "--ptxas", "--show-estimates", str(EXAMPLES / "reduction.cu")], capsys)
    assert code == 1, err
    lines = [l for l in out.splitlines() if ": kernel " in l]
    assert len(lines) == 4 and all("(ptxas (" in l for l in lines)


def _mixed_inputs(tmp_path):
    (tmp_path / "bad.cu").write_text(BAD)
    (tmp_path / "good.cu").write_text(GOOD)
    (tmp_path / "binary.cu").write_bytes(b"\x7fELF\x00\x00\x01" * 100)
    (tmp_path / "latin1.cu").write_bytes("// caf\xe9\n__global__ void k() {}\n".encode("latin-1"))
    (tmp_path / "empty.cu").write_text("")
    return [str(p) for p in sorted(EXAMPLES.glob("*.cu"))] + [str(tmp_path), str(tmp_path / "missing.cu")]


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_jobs_give_the_serial_report(tmp_path, capsys, fmt):
    paths = _mixed_inputs(tmp_path)
    serial = run(["lint", "--isolated", "--format", fmt, *paths], capsys)
    parallel = run(["lint", "--isolated", "--format", fmt, "-j", "2", *paths], capsys)
    assert serial == parallel
    assert serial[0] == 2 and "binary.cu: error: binary file" in serial[2]


def test_jobs_from_the_config_and_bad_values(tmp_path, capsys):
    (tmp_path / ".cudaperf.toml").write_text("jobs = 2\n")
    (tmp_path / "a.cu").write_text(BAD)
    (tmp_path / "b.cu").write_text(GOOD)
    code, out, _ = run(["lint", str(tmp_path)], capsys)
    assert code == 1 and "GM102" in out
    code, _, err = run(["lint", "--isolated", "-j", "-1", str(tmp_path)], capsys)
    assert code == 2 and "--jobs must be 0" in err
    (tmp_path / ".cudaperf.toml").write_text("jobs = -3\n")
    code, _, err = run(["lint", str(tmp_path)], capsys)
    assert code == 2 and "jobs must be 0" in err


def test_jobs_default_to_a_worker_per_8_files_and_the_config_can_say_one_per_core(tmp_path, capsys, monkeypatch):
    from analyzer import cli

    monkeypatch.delenv("PRE_COMMIT", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    assert [cli.default_workers(n) for n in (1, 8, 15, 16, 31, 32, 500)] == [1, 1, 1, 2, 3, 4, 4]
    monkeypatch.setenv("PRE_COMMIT", "1")       # pre-commit runs hooks in parallel itself
    assert cli.default_workers(500) == 1
    monkeypatch.delenv("PRE_COMMIT")
    asked = []
    real = cli._run
    monkeypatch.setattr(cli, "_run", lambda jobs, workers: asked.append(workers) or real(jobs, 1))
    for k in range(20):
        (tmp_path / f"f{k}.cu").write_text(GOOD)
    run(["lint", "--isolated", str(tmp_path)], capsys)
    (tmp_path / ".cudaperf.toml").write_text("jobs = 0\n")
    run(["lint", str(tmp_path)], capsys)
    run(["lint", "-j", "3", str(tmp_path)], capsys)
    assert asked == [2, 0, 3]     # 20 files: 2 workers; the config's 0 (one per core) is kept, not taken for 1


_PARENT = None


def _dies_on_crash_file(job):
    """A worker that dies (as a parser crash would) on files named crash.cu; the parent lints them fine."""
    import os

    if job.path.name == "crash.cu" and os.getpid() != _PARENT:
        os._exit(3)
    return _REAL_LINT_FILE(job)


_REAL_LINT_FILE = None


def test_a_dead_worker_loses_no_results(tmp_path, capsys, monkeypatch):
    import os

    from analyzer import cli

    global _PARENT, _REAL_LINT_FILE
    _PARENT, _REAL_LINT_FILE = os.getpid(), cli.lint_file
    for k in range(6):
        (tmp_path / f"f{k}.cu").write_text(BAD)
    (tmp_path / "crash.cu").write_text(BAD)
    serial = run(["lint", "--isolated", str(tmp_path)], capsys)
    monkeypatch.setattr(cli, "lint_file", _dies_on_crash_file)
    code, out, err = run(["lint", "--isolated", "-j", "2", str(tmp_path)], capsys)
    assert "a lint worker died" in err
    assert (code, out) == serial[:2] and out.count("GM102") == 7


def test_an_internal_error_is_that_files_one_line_and_the_others_still_count(tmp_path, capsys, monkeypatch):
    from analyzer import lint

    real = lint.lint_source

    def fails_on_boom(text, path, **kw):
        if path.endswith("boom.cu"):
            raise KeyError("a bug of ours")
        return real(text, path, **kw)

    (tmp_path / "bad.cu").write_text(BAD)
    (tmp_path / "boom.cu").write_text(BAD)
    monkeypatch.setattr(lint, "lint_source", fails_on_boom)
    code, out, err = run(["lint", "--isolated", str(tmp_path)], capsys)
    assert code == 2
    assert [l for l in err.splitlines() if "internal error" in l] == [
        next(l for l in err.splitlines() if l.startswith(str(tmp_path / "boom.cu")))]
    assert "KeyError" in err and "bad.cu:4:" in out and "boom.cu:" not in out


def test_shared_arrays_of_odd_width_types_lint(tmp_path, capsys):
    """float3 (12 bytes) and double4 (32 bytes) in shared memory are several LDS/STS each; the
    model once failed on them and the file's results were lost."""
    (tmp_path / "odd.cu").write_text("""
__global__ void k(const float3* in, float3* out, const double4* d, double4* e) {
  __shared__ float3 s[128];
  __shared__ double4 t[128];
  s[threadIdx.x] = in[threadIdx.x];
  t[threadIdx.x] = d[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[127 - threadIdx.x];
  e[threadIdx.x] = t[127 - threadIdx.x];
}
""")
    code, out, err = run(["lint", "--isolated", "--format", "json", str(tmp_path / "odd.cu")], capsys)
    doc = json.loads(out)
    assert code in (0, 1) and doc["errors"] == [] and err.strip() == ""
    assert [k["name"] for k in doc["files"][0]["kernels"]] == ["k"]


KERNELBENCH_STYLE = r'''import torch
from torch.utils.cpp_extension import load_inline

cuda_src = r"""
#include <torch/extension.h>

template <typename scalar_t>
__global__ void scale_kernel(const scalar_t* x, scalar_t* out, int64_t n) {
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        out[i] = x[i] * 2;
}

__global__ void block_sum(const float* x, float* out) {
    __shared__ float buf[128];
    buf[threadIdx.x] = x[blockIdx.x * 128 + threadIdx.x];
    __syncthreads();
    for (int s = 1; s < 128; s <<= 1) {
        if (threadIdx.x % (2 * s) == 0) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = buf[0];
}

torch::Tensor forward(torch::Tensor x) {
    auto out = torch::empty_like(x);
    const int threads = 128;
    const int blocks = (x.numel() + threads - 1) / threads;
    AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "scale", ([&] {
        scale_kernel<scalar_t><<<blocks, threads>>>(x.data_ptr<scalar_t>(), out.data_ptr<scalar_t>(), x.numel());
    }));
    return out;
}
"""
mod = load_inline(name="m", cpp_sources="torch::Tensor forward(torch::Tensor x);", cuda_sources=cuda_src,
                  functions=["forward"])
'''


def test_python_solution_reports_python_lines_and_launches_inside_dispatch_lambdas(tmp_path, capsys):
    # the launch sits in an AT_DISPATCH lambda and takes its block from `const int threads = 128;`;
    # lines named inside messages are lines of the .py file, as the findings' own positions are
    path = tmp_path / "solution.py"
    path.write_text(KERNELBENCH_STYLE)
    lines = KERNELBENCH_STYLE.splitlines()
    launch_line = next(i for i, l in enumerate(lines, 1) if "scale_kernel<scalar_t><<<" in l)
    loop_line = next(i for i, l in enumerate(lines, 1) if "for (int s = 1;" in l)
    code, out, _ = run(["lint", "--isolated", "--show-estimates", str(path)], capsys)
    assert code == 1
    (summary,) = [l for l in out.splitlines() if "kernel scale_kernel" in l]
    assert f"block 128x1x1 (the launch at line {launch_line})" in summary
    (dv,) = [l for l in out.splitlines() if " DV401 " in l]
    assert f"inside the loop at line {loop_line}" in dv and int(dv.split(":")[1]) == loop_line + 1


def test_notes_on_embedded_cuda_name_lines_of_the_python_file(tmp_path, capsys):
    """A kernel's note (a template type taken as 4 bytes) gave the kernel's line in the CUDA string,
    not in the .py file."""
    src = ('from torch.utils.cpp_extension import load_inline\n\n'
           'cuda_src = r"""\n#include <torch/extension.h>\n\n'
           'template <typename scalar_t>\n'
           '__global__ void scale(const scalar_t* __restrict__ x, scalar_t* __restrict__ y, int n) {\n'
           '  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = x[i];\n}\n"""\n'
           'mod = load_inline(name="m", cpp_sources="", cuda_sources=cuda_src)\n')
    path = tmp_path / "solution.py"
    path.write_text(src)
    kernel_line = next(i for i, l in enumerate(src.splitlines(), 1) if "__global__ void scale" in l)
    code, _, err = run(["lint", "--isolated", str(path)], capsys)
    (note,) = [l for l in err.splitlines() if "kernel scale:" in l]
    assert note.startswith(f"{path}:{kernel_line}: kernel scale: template type scalar_t")


def test_f_string_expressions_render_as_python_computes_them():
    """`{N // 2}` is Python's floor division (it was spliced in as `(N // 2)`, which opens a C
    comment and hid the rest of the line); `{N / 4}` is Python's 2.0; an expression of names the
    module does not bind stays as text, without `//`; powers and shifts are not computed."""
    from analyzer.pyextract import extract

    src = ('N = 8\nload_inline("m", cuda_sources=f"__global__ void k(float* x) '
           '{{ x[threadIdx.x * {N // 2}] = {N / 4}; x[{M // 2}] = {N ** 99}; }}")\n')
    (emb,) = extract(src)
    assert emb.source == "__global__ void k(float* x) { x[threadIdx.x * 4] = 2.0; x[(M / 2)] = (N ** 99); }"


GITHUB = re.compile(r"^::(?P<level>error|warning|notice) file=(?P<file>[^,]+)(?:,line=(?P<line>\d+),col=(?P<col>\d+))?,"
                    r"title=(?P<title>[^:]+)::(?P<msg>[^\r\n]+)$")


def test_github_format_is_one_workflow_command_per_finding_and_error(files, capsys):
    """`--format github`: what a GitHub Actions step prints to annotate the diff; levels by
    severity, `%`, `,` and `:` escaped where the syntax needs it, an unreadable file an ::error."""
    (files / "odd,name:1.cu").write_text("// 100% of it\n" + BAD)
    code, text_out, _ = run(["lint", "--isolated", str(files / "bad.cu")], capsys)
    code, out, _ = run(["lint", "--isolated", "--format", "github", str(files / "bad.cu"),
                        str(files / "odd,name:1.cu"), str(files / "missing.cu")], capsys)
    assert code == 2
    lines = out.splitlines()
    parsed = [GITHUB.match(l) for l in lines]
    assert all(parsed), lines
    bad = [m for m in parsed if m["file"].endswith("bad.cu")]
    assert len(bad) == len([l for l in text_out.splitlines() if LINE.match(l)])
    store = next(m for m in bad if "GM102" in m["title"])
    assert (store["level"], store["line"], store["col"]) == ("warning", "4", "23")
    assert store["title"] == "cudaperf GM102 (uncoalesced-global-store)"
    assert any(m["file"].endswith("odd%2Cname%3A1.cu") and m["line"] == "5" for m in parsed)
    assert any(m["level"] == "error" and m["file"].endswith("missing.cu") and m["line"] is None for m in parsed)


VECTOR_ADD = """__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
"""


def test_fail_on_sets_the_least_severe_finding_that_fails(tmp_path, capsys):
    """A vector add has only GM103's info (loads that could be float4): reported either way; it
    fails the run by default (any finding) and not with --fail-on warning or the config's fail-on."""
    from analyzer.config import FAIL_ON
    from analyzer.rules import SEVERITIES

    assert FAIL_ON == SEVERITIES        # the light config module's copy of the rules' severities
    (tmp_path / "add.cu").write_text(VECTOR_ADD)
    (tmp_path / "bad.cu").write_text(BAD)
    code, out, _ = run(["lint", "--isolated", str(tmp_path / "add.cu")], capsys)
    assert code == 1 and "GM103" in out
    code, out, _ = run(["lint", "--isolated", "--fail-on", "warning", str(tmp_path / "add.cu")], capsys)
    assert code == 0 and "GM103" in out
    code, out, _ = run(["lint", "--isolated", "--fail-on", "warning", str(tmp_path / "bad.cu")], capsys)
    assert code == 1
    (tmp_path / ".cudaperf.toml").write_text('fail-on = "warning"\n')
    code, _, _ = run(["lint", str(tmp_path / "add.cu")], capsys)
    assert code == 0
    code, _, _ = run(["lint", "--fail-on", "info", str(tmp_path / "add.cu")], capsys)     # the flag wins
    assert code == 1
    (tmp_path / ".cudaperf.toml").write_text('fail-on = "warnings"\n')
    code, _, err = run(["lint", str(tmp_path / "add.cu")], capsys)
    assert code == 2 and "fail-on must be one of error, warning, info" in err
