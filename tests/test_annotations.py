"""Launch annotations (`// cudaperf: launch ...`) and the config file's [launch.NAME] tables."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.annotations import scan
from analyzer.lint import LaunchSpec, _name_expressions, lint_source

ROOT = Path(__file__).resolve().parent.parent

# A column walk: uncoalesced by how much depends on the block's x extent (16 lanes of a 16x16
# block span 2 rows of a warp; 32 lanes of a 256x1 block span 1).
COLUMN = """\
__global__ void col(const float* a, float* b, int n, int m) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < n && y < m) b[x * m + y] = a[x * m + y];
}
"""

# a block's share is BLOCK * ITEMS: neither is guessed, so at 4096 each the sampled block runs nothing
ITEMS_TEMPLATE = """\
template <int BLOCK, int ITEMS>
__global__ void tk(const float* in, float* out, int n) {
  int i = blockIdx.x * (BLOCK * ITEMS) + threadIdx.x;
  for (int k = 0; k < ITEMS; ++k)
    if (i + k * BLOCK < n) out[i + k * BLOCK] = in[(i + k * BLOCK) * 2];
}
"""


def kernel(res, name):
    return next(k for k in res.kernels if k.name == name)


def test_scan_reads_names_template_arguments_dimensions_and_constant_expressions():
    notes, problems = scan("// cudaperf: launch sgemm<64, 8> block=TILE,TILE/4 grid=8x8 smem=1<<10 K=TILE*2 alpha=0.5\n",
                           {"TILE": 32})
    assert problems == []
    (n,) = notes
    assert (n.line, n.col, n.name, n.template_args) == (1, 1, "sgemm", ("64", "8"))
    assert (n.block, n.grid, n.smem) == ((32, 8, 1), (8, 8, 1), 1024)
    assert n.args == {"K": 64, "alpha": 0.5}


@pytest.mark.parametrize("text, why", [
    ("// cudaperf: launch block=abc", "not a constant"),
    ("// cudaperf: launch block=0", "not a positive integer"),
    ("// cudaperf: launch block=1,2,3,4", "1 to 3 sizes"),
    ("// cudaperf: launch grid=1,70000", "beyond CUDA's limits"),
    ("// cudaperf: launch smem=-4", "not a byte count"),
    ("// cudaperf: launch n=1 n=2", "given twice"),
    ("// cudaperf: launch n=", "has no value"),
    ("// cudaperf: launch k", "no KEY=VALUE"),
    ("// cudaperf: launch 3k n=1", "neither a kernel name"),
    ("// cudaperf: launch n=1<<70", "not a constant"),
])
def test_scan_says_why_an_annotation_is_not_read(text, why):
    notes, problems = scan(text + "\n", {})
    assert notes == []
    assert len(problems) == 1 and why in problems[0].message, problems


def test_an_annotation_sets_the_block_and_arguments_of_the_next_kernel():
    plain = lint_source(COLUMN, "c.cu")
    noted = lint_source("#define T 16\n// cudaperf: launch block=T,T n=1<<12 m=2048\n" + COLUMN, "c.cu")
    p, a = kernel(plain, "col"), kernel(noted, "col")
    assert p.block == (32, 8, 1) and a.block == (16, 16, 1)
    assert a.launch_source == "the annotation at line 2"
    assert p.assumed and not a.assumed          # n and m were defaults before, given now
    assert a.global_load_sectors_per_request == 16 and p.global_load_sectors_per_request == 32
    assert not [f for f in noted.findings if f.code == "PA002"]


def test_an_annotation_inside_the_body_and_a_named_one_after_the_kernel():
    inside = COLUMN.replace("{\n", "{\n  // cudaperf: launch block=16,16\n", 1)
    assert kernel(lint_source(inside, "c.cu"), "col").block == (16, 16, 1)
    after = COLUMN + "// cudaperf: launch col block=64,4\n"
    assert kernel(lint_source(after, "c.cu"), "col").block == (64, 4, 1)


def test_a_named_annotation_gives_template_arguments():
    src = ITEMS_TEMPLATE
    bare = lint_source(src, "t.cu").contexts[0]
    noted = lint_source(src + "// cudaperf: launch tk<128, 4> block=128 n=1<<20\n", "t.cu").contexts[0]
    assert noted.accesses.constants.get("BLOCK") == 128 and noted.accesses.constants.get("ITEMS") == 4
    assert bare.accesses.constants.get("ITEMS") != 4
    # the instance is what --ptxas compiles
    lower = {"tk": (LaunchSpec(), ("128", "4"))}
    assert "tk<128, 4>" in _name_expressions(noted.program, None, lower)


def test_precedence_caller_over_annotation_over_config_over_launch_site():
    src = "// cudaperf: launch block=16,16 n=64\n" + COLUMN + \
        "void host(float* a, float* b) { col<<<dim3(4, 4), dim3(8, 8)>>>(a, b, 100, 100); }\n"
    cfg = {"col": LaunchSpec(block=(128, 1, 1), grid=(9, 9, 1), args={"m": 7, "n": 5}, origin="cfg")}
    k = kernel(lint_source(src, "c.cu", configured=cfg), "col")
    assert k.block == (16, 16, 1) and k.grid == (9, 9, 1)      # block: annotation; grid: config
    ctx = lint_source(src, "c.cu", configured=cfg).contexts[0]
    assert ctx.launch.args["n"] == 64 and ctx.launch.args["m"] == 7
    given = kernel(lint_source(src, "c.cu", configured=cfg, default_launch=LaunchSpec(block=(32, 2, 1))), "col")
    assert given.block == (32, 2, 1) and given.launch_source.startswith("the given launch")
    site_only = kernel(lint_source(src.split("\n", 1)[1], "c.cu"), "col")
    assert site_only.block == (8, 8, 1)
    over_site = kernel(lint_source(src, "c.cu"), "col")
    assert over_site.block == (16, 16, 1)
    assert kernel(lint_source(src, "c.cu", annotations=False), "col").block == (8, 8, 1)


def test_the_reward_features_ignore_a_candidates_annotations():
    from rewardmodel.features import extract

    import numpy as np

    kw = dict(grid=(64, 64, 1), block=(32, 8, 1))
    plain = extract(COLUMN, "col", args={"n": 2048}, **kw).vector()
    noted = extract("// cudaperf: launch m=1\n" + COLUMN, "col", args={"n": 2048}, **kw).vector()
    np.testing.assert_array_equal(plain, noted)
    # m matters: the annotation's value, had it been read, would have changed the row
    told = extract(COLUMN, "col", args={"n": 2048, "m": 1}, **kw).vector()
    assert not np.array_equal(plain, told, equal_nan=True)


def test_an_annotation_in_a_python_string_is_read_and_reported_at_python_lines(tmp_path):
    py = tmp_path / "sol.py"
    py.write_text('from torch.utils.cpp_extension import load_inline\n'
                  'src = """\n// cudaperf: launch block=16,16 nn=3\n' + COLUMN + '"""\n'
                  'load_inline(name="x", cpp_sources="", cuda_sources=src)\n')
    out = subprocess.run([sys.executable, "-m", "analyzer", "lint", "--select", "PA", str(py)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 1, out.stderr
    assert f"{py}:3:1: PA002" in out.stdout or "sol.py:3:1: PA002" in out.stdout, out.stdout


def run_lint(args, cwd):
    return subprocess.run([sys.executable, "-m", "analyzer", "lint", *args], capture_output=True, text=True, cwd=cwd)


def test_config_launch_tables(tmp_path):
    (tmp_path / "c.cu").write_text(COLUMN)
    (tmp_path / ".cudaperf.toml").write_text('[launch.col]\nblock = [16, 16]\nargs = { n = 4096, m = 512 }\n')
    out = run_lint(["--format", "json", "c.cu"], tmp_path)
    assert out.returncode in (0, 1), out.stderr
    (k,) = json.loads(out.stdout)["files"][0]["kernels"]
    assert k["block"] == [16, 16, 1] and k["launch_source"] == ".cudaperf.toml [launch.col]"
    assert k["assumed"] == []
    # an annotation in the file overrides the table
    (tmp_path / "c.cu").write_text("// cudaperf: launch block=64,2\n" + COLUMN)
    (k,) = json.loads(run_lint(["--format", "json", "c.cu"], tmp_path).stdout)["files"][0]["kernels"]
    assert k["block"] == [64, 2, 1] and k["assumed"] == []      # the table's arguments still count


@pytest.mark.parametrize("table, why", [
    ("[launch.col]\nblok = [16]\n", "unknown key(s) blok"),
    ("[launch.col]\nblock = [2000]\n", "beyond CUDA's limits"),
    ("[launch.col]\nblock = [16, 0]\n", "positive integers"),
    ("[launch.col]\nsmem = -1\n", "byte count"),
    ("[launch.col]\nargs = { n = \"big\" }\n", "table of numbers"),
    ("launch = 3\n", "table of kernels"),
])
def test_a_bad_launch_table_is_a_usage_error(tmp_path, table, why):
    (tmp_path / "c.cu").write_text(COLUMN)
    (tmp_path / ".cudaperf.toml").write_text(table)
    out = run_lint(["c.cu"], tmp_path)
    assert out.returncode == 2 and why in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


# no block reaches its accesses at the assumed sizes (k = n = 4096): only a given launch helps
UNREACHED = """\
__global__ void lu(float* a, int k, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j > k && j < n) a[j * n + k] /= a[k * n + k];
}
"""


def test_a_kernel_no_sampled_thread_reaches_gets_a_note_pointing_at_the_annotation():
    (note,) = [n for n in lint_source(UNREACHED, "t.cu").notes if "no thread of the sampled block" in n]
    assert note.startswith("t.cu:1: kernel lu:") and "3 memory accesses" in note
    assert "k=4096, n=4096" in note and "// cudaperf: launch lu" in note
    given = lint_source(UNREACHED + "// cudaperf: launch lu block=256 k=0 n=1<<20\n", "t.cu")
    assert not [n for n in given.notes if "no thread" in n]
    assert {f.code for f in given.findings} == {"GM101", "GM102"}     # a column: n floats apart


def test_a_guessed_grid_whose_block_1_reaches_nothing_is_estimated_on_one_block():
    # block 1 starts at BLOCK * ITEMS = 4096 * 4096, past the assumed n; block 0 does not
    res = lint_source(ITEMS_TEMPLATE, "t.cu")
    assert not [n for n in res.notes if "no thread" in n]
    k = kernel(res, "tk")
    assert k.grid == (1, 1, 1) and "a grid of one block: block 1 of the guessed 1024" in k.launch_source
    assert k.global_load_sectors_per_request == 8      # in[2 * i]: every other float
    # a grid that was given is kept, and the note tells how to give a better launch
    given = lint_source(ITEMS_TEMPLATE, "t.cu", launches={"tk": LaunchSpec((256, 1, 1), (1024, 1, 1), 0, {})})
    assert kernel(given, "tk").grid == (1024, 1, 1)
    assert [n for n in given.notes if "no thread of the sampled block" in n]
    # as does one whose block 1 reaches its accesses
    annotated = lint_source(ITEMS_TEMPLATE + "// cudaperf: launch tk<128, 4> block=128 n=1<<20\n", "t.cu")
    assert kernel(annotated, "tk").grid == (1024, 1, 1)
    assert kernel(annotated, "tk").global_load_sectors_per_request == 8
