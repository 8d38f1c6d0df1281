"""The pre-commit hook, for real: a temporary repository with a bad kernel, `pre-commit try-repo` on this checkout."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pre-commit") is None or not (ROOT / ".git").exists(),
                    reason="needs pre-commit and a git checkout")
def test_pre_commit_try_repo(tmp_path):
    repo = tmp_path / "user-repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "kernels").mkdir()
    (repo / "kernels" / "bad.cu").write_text(BAD)
    (repo / "kernels" / "good.cuh").write_text(GOOD)
    (repo / "notes.txt").write_text("out[x * n + y] is not CUDA here\n")
    _git(repo, "add", ".")
    # the hook's environment installs the analyzer in pure Python: compiling it (setup.py) would add
    # ~3 minutes here, and the compiled build is what `make install` and tests/test_compiled.py test
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pc-home"), "PRE_COMMIT_COLOR": "never",
           "CUDAPERF_PURE_PYTHON": "1"}
    proc = subprocess.run(["pre-commit", "try-repo", str(ROOT), "cudaperf-lint", "--all-files"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "kernels/bad.cu:4:23: GM102" in out
    assert "good.cuh:" not in out and "notes.txt" not in out

    (repo / "kernels" / "bad.cu").write_text(GOOD)
    _git(repo, "add", ".")
    proc = subprocess.run(["pre-commit", "try-repo", str(ROOT), "cudaperf-lint", "--all-files"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr

    # the hook for CUDA in Python: a load_inline solution's kernel is linted at the .py file's lines;
    # Python files without CUDA (and one that does not parse) pass quietly
    (repo / "solution.py").write_text(f'from torch.utils.cpp_extension import load_inline\nsrc = """\n{BAD}"""\n'
                                      'mod = load_inline(name="t", cpp_sources="", cuda_sources=src)\n')
    (repo / "util.py").write_text("def helper():\n    return 1\n")
    (repo / "old.py").write_text('print "python 2"\n')
    _git(repo, "add", ".")
    proc = subprocess.run(["pre-commit", "try-repo", str(ROOT), "cudaperf-lint-python", "--all-files"], cwd=repo,
                          env=env, capture_output=True, text=True, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "solution.py:6:23: GM102" in out
    assert "util.py" not in out and "old.py" not in out
