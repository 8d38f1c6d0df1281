"""The compiled analyzer modules (setup.py): an edited source wins over a stale compiled module,
and compiled and pure-Python runs give the same answers."""
from __future__ import annotations

import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer import _fresh

ROOT = Path(__file__).resolve().parents[1]
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def _pair(d: Path, stem: str, source_newer: bool) -> Path:
    """A source and a (dummy, never imported) compiled module beside it, one older than the other."""
    src, compiled = d / f"{stem}.py", d / f"{stem}{SUFFIX}"
    src.parent.mkdir(parents=True, exist_ok=True)
    src.write_text("X = 1\n")
    compiled.write_bytes(b"not a real extension module")
    old, new = 1_000_000_000, 1_000_000_100
    os.utime(src, (new, new) if source_newer else (old, old))
    os.utime(compiled, (old, old) if source_newer else (new, new))
    return src


def test_use_source_when_the_compiled_module_is_older(tmp_path, monkeypatch):
    monkeypatch.delenv("CUDAPERF_PURE_PYTHON", raising=False)
    assert _fresh.use_source(str(_pair(tmp_path, "stale", source_newer=True)))
    assert not _fresh.use_source(str(_pair(tmp_path, "fresh", source_newer=False)))
    monkeypatch.setenv("CUDAPERF_PURE_PYTHON", "1")
    assert _fresh.use_source(str(_pair(tmp_path / "b", "fresh", source_newer=False)))


def test_a_newer_source_that_the_build_recorded_runs_compiled(tmp_path, monkeypatch):
    """An installer may write x.py after x.so (a wheel's files go in name order): the source is
    newer but is the one the module was built from, which the build's manifest says."""
    monkeypatch.delenv("CUDAPERF_PURE_PYTHON", raising=False)
    src = _pair(tmp_path, "installed", source_newer=True)
    compiled = str(tmp_path / f"installed{SUFFIX}")
    assert _fresh.use_source(str(src))                       # no record: the date decides
    _fresh.record_build(compiled, str(src))
    assert _fresh.built_from(compiled) == _fresh.source_digest(str(src))
    assert not _fresh.use_source(str(src))
    src.write_text("X = 2\n")                                # edited since the build
    os.utime(src, (1_000_000_200, 1_000_000_200))
    assert _fresh.use_source(str(src))
    src.write_text("X = 1\n")                                # and edited back
    assert not _fresh.use_source(str(src))
    (tmp_path / _fresh.MANIFEST).write_text("not json")      # a damaged record: the date decides
    _fresh._MANIFESTS.clear()
    assert _fresh.use_source(str(src))


def test_finder_gives_the_source_of_a_stale_module_and_package(tmp_path, monkeypatch):
    monkeypatch.delenv("CUDAPERF_PURE_PYTHON", raising=False)
    stale = _pair(tmp_path, "stale", source_newer=True)
    _pair(tmp_path, "fresh", source_newer=False)
    pkg = _pair(tmp_path / "pkg", "__init__", source_newer=True)
    (tmp_path / "plain.py").write_text("X = 1\n")
    find = _fresh.SourceWhenStale.find_spec
    spec = find("analyzer.stale", [str(tmp_path)])
    assert spec is not None and spec.origin == str(stale)
    spec = find("analyzer.pkg", [str(tmp_path)])
    assert spec is not None and spec.origin == str(pkg)
    assert spec.submodule_search_locations == [str(tmp_path / "pkg")]
    assert find("analyzer.fresh", [str(tmp_path)]) is None     # the normal import: compiled
    assert find("analyzer.plain", [str(tmp_path)]) is None     # no compiled form: the normal import
    assert find("other.stale", [str(tmp_path)]) is None        # not ours
    assert _fresh.SourceWhenStale in sys.meta_path


def test_a_module_that_cimports_another_runs_as_source_when_that_one_does(tmp_path, monkeypatch):
    """access and models call symbolic's C functions (a cimport in their .pxd): compiled, they
    need symbolic compiled and current, so they follow it to the source."""
    monkeypatch.delenv("CUDAPERF_PURE_PYTHON", raising=False)
    find = _fresh.SourceWhenStale.find_spec
    access = _pair(tmp_path, "access", source_newer=False)
    _pair(tmp_path, "symbolic", source_newer=False)
    assert find("analyzer.access", [str(tmp_path)]) is None             # both current: compiled
    _pair(tmp_path, "symbolic", source_newer=True)                      # symbolic edited since its build
    spec = find("analyzer.access", [str(tmp_path)])
    assert spec is not None and spec.origin == str(access)
    (tmp_path / f"symbolic{SUFFIX}").unlink()                          # symbolic's build failed
    assert find("analyzer.access", [str(tmp_path)]) is not None
    assert find("analyzer.fresh_other", [str(_pair(tmp_path / "o", "fresh_other", False).parent)]) is None
    # every declared dependency is a module that setup.py compiles, beside its dependents
    for name, deps in _fresh.CIMPORTS.items():
        pkg = name.rpartition(".")[0]
        for dep in deps:
            assert f"{pkg}/{dep}.py" in (ROOT / "setup.py").read_text()
            assert (ROOT / pkg / f"{name.rpartition('.')[2]}.pxd").read_text().count(f"cimport {dep}") == 1


def test_accelerator_imports_a_built_helper_only_when_it_is_current(tmp_path, monkeypatch):
    """A C helper built from a .pyx (analyzer._lanes, rewardmodel._forest) is used when it was
    built from the .pyx there is now; its caller falls back to numpy on None."""
    import importlib

    monkeypatch.delenv("CUDAPERF_PURE_PYTHON", raising=False)
    pkg = tmp_path / "accpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("accpkg")
    pyx, built = pkg / "fast.pyx", pkg / f"fast{SUFFIX}"
    pyx.write_text("def f(): pass\n")
    assert _fresh.accelerator("accpkg.fast") is None                 # not built
    built.write_bytes(b"not a real extension module")
    assert _fresh.accelerator("accpkg.fast") is None                 # built, but for no Python: ImportError
    imported = []
    real = importlib.import_module
    monkeypatch.setattr(importlib, "import_module", lambda name: imported.append(name) or real("json"))
    old, new = 1_000_000_000, 1_000_000_100
    os.utime(pyx, (new, new))
    os.utime(built, (old, old))
    assert _fresh.accelerator("accpkg.fast") is None and imported == []   # the .pyx was edited since
    _fresh.record_build(str(built), str(pyx))        # or only written after it, as the build recorded
    assert _fresh.accelerator("accpkg.fast") is not None and imported == ["accpkg.fast"]
    imported.clear()
    (pkg / _fresh.MANIFEST).unlink()
    _fresh._MANIFESTS.clear()
    os.utime(built, (new + 1, new + 1))
    assert _fresh.accelerator("accpkg.fast") is not None and imported == ["accpkg.fast"]
    pyx.unlink()                                                      # an installed wheel ships no .pyx
    assert _fresh.accelerator("accpkg.fast") is not None
    monkeypatch.setenv("CUDAPERF_PURE_PYTHON", "1")
    assert _fresh.accelerator("accpkg.fast") is None
    # and the stale-module finder leaves a helper with no .py to the normal import
    assert _fresh.SourceWhenStale.find_spec("analyzer.fast", [str(pkg)]) is None


def _run(code: str, pure: bool) -> str:
    env = {k: v for k, v in os.environ.items() if k != "CUDAPERF_PURE_PYTHON"}
    if pure:
        env["CUDAPERF_PURE_PYTHON"] = "1"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


_LINT = """
import json, sys
from pathlib import Path
import analyzer.examples as ex
from analyzer import _fresh
from analyzer.lint import lint_source
out = {"compiled": _fresh.compiled_modules(), "files": {}}
paths = sorted(Path(ex.DIR).glob("*.cu")) + sorted(Path("corpus/handwritten/kernels").glob("*.cu"))
for p in paths:
    r = lint_source(p.read_bytes(), str(p))
    out["files"][str(p)] = [repr(f) for f in r.findings] + [repr(k) for k in r.kernels]
print(json.dumps(out))
"""

_FEATURES = """
import json, math
from corpus.families import all_samples
from analyzer import _fresh
from rewardmodel.dataset import sample_features
samples = all_samples()[::7]
rows = [[None if math.isnan(x) else x for x in sample_features(s).vector().tolist()] for s in samples]
print(json.dumps({"compiled": _fresh.compiled_modules(), "rows": rows}))
"""


_REWARD = """
import json
from corpus.families import all_samples
from analyzer import _fresh
from rewardmodel.dataset import sample_args
from rewardmodel.features import Problem
from rewardmodel.reward import reward
from rewardmodel.surrogate import load_default
model = load_default()
out = []
for s in all_samples()[::23]:
    br, _, _ = reward(s.source, s.kernel, grid=s.grid, block=s.block, smem=s.smem, args=sample_args(s),
                      problem=Problem(s.bytes, s.flops), model=model, baseline_ms=0.1)
    out.append(repr(br.to_dict()))
print(json.dumps({"compiled": _fresh.compiled_modules(), "rewards": out}))
"""


@pytest.mark.slow
@pytest.mark.parametrize("code", [_LINT, _FEATURES, _REWARD], ids=["lint", "features", "reward"])
def test_compiled_and_pure_python_agree(code):
    compiled = json.loads(_run(code, pure=False))
    if not any(compiled["compiled"].values()):
        pytest.skip("no compiled analyzer modules in this install (pure Python only)")
    pure = json.loads(_run(code, pure=True))
    assert not any(pure["compiled"].values())
    body = {k: v for k, v in compiled.items() if k != "compiled"}
    assert body == {k: v for k, v in pure.items() if k != "compiled"}


def test_walker_attributes_are_declared_for_the_compiled_build():
    """Compiled, access._Walker is an extension type (access.pxd): an attribute the .py sets but
    the .pxd does not declare would fail only there. Every `self.x = ...` must be declared."""
    import ast
    import re

    tree = ast.parse((ROOT / "analyzer" / "access.py").read_text())
    walker = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "_Walker")
    assigned = set()
    for node in ast.walk(walker):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            for el in (t.elts if isinstance(t, ast.Tuple) else [t]):
                if isinstance(el, ast.Attribute) and isinstance(el.value, ast.Name) and el.value.id == "self":
                    assigned.add(el.attr)
    pxd = (ROOT / "analyzer" / "access.pxd").read_text()
    declared = set()
    for line in pxd.splitlines():
        m = re.match(r"\s+cdef public \w+ (.+)$", line)
        if m:
            declared |= {n.strip() for n in m.group(1).split(",")}
    assert assigned, "no attributes found: the test no longer reads _Walker"
    assert assigned <= declared, f"declare in analyzer/access.pxd: {sorted(assigned - declared)}"


_WHICH = """
import json
from analyzer import _fresh
import analyzer.lint, rewardmodel.features
print(json.dumps(_fresh.compiled_modules()))
"""


def test_an_install_that_writes_sources_after_compiled_modules_runs_compiled(tmp_path):
    """`pip install .` or a wheel: the packages copied with every .py newer than its compiled
    module, as an installer leaves them, still run compiled; an edited one runs as source."""
    import shutil

    here = json.loads(subprocess.run([sys.executable, "-c", _WHICH], cwd=tmp_path, capture_output=True, text=True,
                                     check=True).stdout)
    if not any(here.values()):
        pytest.skip("no compiled analyzer modules in this install (pure Python only)")
    for pkg in ("analyzer", "rewardmodel"):
        shutil.copytree(ROOT / pkg, tmp_path / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.c", "*.html"))
    later = os.stat(ROOT / "setup.py").st_mtime + 10**6
    for src in tmp_path.rglob("*.py"):
        os.utime(src, (later, later))
    env = {k: v for k, v in os.environ.items() if k != "CUDAPERF_PURE_PYTHON"}
    env["PYTHONPATH"] = str(tmp_path)

    def which() -> dict:
        out = subprocess.run([sys.executable, "-c", _WHICH], cwd=tmp_path, env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-2000:]
        return json.loads(out.stdout)

    installed = which()
    assert installed == here
    edited = tmp_path / "analyzer" / "vectorize.py"
    edited.write_text(edited.read_text() + "\n# edited\n")
    after = which()
    assert after["analyzer.vectorize"] is False
    assert {k: v for k, v in after.items() if k != "analyzer.vectorize"} == \
        {k: v for k, v in here.items() if k != "analyzer.vectorize"}


def test_the_sdist_carries_every_source_the_build_compiles(tmp_path):
    """A wheel built from the sdist (`python -m build`, a PyPI install) compiles the same modules:
    each .py and .pyx that setup.py names must be in the sdist (the .pyx through MANIFEST.in)."""
    import ast
    import shutil
    import tarfile

    pytest.importorskip("setuptools")      # setup.py's own import (Python 3.12+ venvs come without it)
    try:
        tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    src = tmp_path / "src"
    for rel in tracked.splitlines():
        if rel.startswith(("analyzer/", "rewardmodel/")) or rel in ("setup.py", "pyproject.toml", "MANIFEST.in",
                                                                    "README.md"):
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, src / rel)
    for pkg in ("rl", "corpus"):               # the package finder wants them; their content is not the point
        (src / pkg).mkdir(exist_ok=True)
        (src / pkg / "__init__.py").write_text("")
    env = {**os.environ, "CUDAPERF_PURE_PYTHON": "1"}     # no Cython run: the sdist's file list is the point
    proc = subprocess.run([sys.executable, "setup.py", "-q", "sdist", "-d", str(tmp_path / "dist")], cwd=src,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    (archive,) = (tmp_path / "dist").glob("*.tar.gz")
    with tarfile.open(archive) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    setup = ast.parse((ROOT / "setup.py").read_text())
    compiled = next(ast.literal_eval(n.value) for n in ast.walk(setup)
                    if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "COMPILED")
    assert any(c.endswith(".pyx") for c in compiled)
    assert sorted(c for c in compiled if c not in names) == []


def test_no_module_failed_to_compile():
    """A module Cython cannot compile (a generator expression in a method the .pxd makes cpdef: "closures
    inside cpdef functions not yet supported") is built as optional, so the install succeeds and that
    module quietly runs as pure Python, ~1.2x slower. Cython leaves an `#error` C file in its place:
    none may be there after an install (`make test` installs first)."""
    import ast

    tree = ast.parse((ROOT / "setup.py").read_text())
    listed = next(n.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "COMPILED")
    sources = [ROOT / e.value for e in listed.elts]
    assert sources, "setup.py lists no compiled modules"
    failed = []
    for src in sources:
        c_file = src.with_suffix(".c")
        if c_file.exists() and c_file.read_text(errors="replace").startswith("#error Do not use this file"):
            failed.append(str(src.relative_to(ROOT)))
    assert not failed, f"Cython failed on {failed}: run `cython -3 FILE` for the error"
