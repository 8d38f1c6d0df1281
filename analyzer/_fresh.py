"""Which of a module's two forms to import: its source, or the compiled module built from it.

An install compiles the hot modules (setup.py) next to their sources, and Python
imports a compiled module before a source of the same name. One older than its source may have
been built before an edit (or a checkout): importing it would run old code. The build records
the digest of the source each compiled module came from (MANIFEST, beside them), so a source
that is newer but unchanged (a wheel install writes x.py after x.so) still runs compiled, and an
edited one runs as source until the next install. CUDAPERF_PURE_PYTHON=1 imports every source
(A/B checks).
"""
from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys

PACKAGES = ("analyzer", "rewardmodel")   # the packages setup.py compiles .py modules of
_SUFFIXES = tuple(importlib.machinery.EXTENSION_SUFFIXES)
_PREFIXES = tuple(p + "." for p in PACKAGES)


def compiled_path(source: str) -> str | None:
    """The compiled module beside `source` (a .py path), if there is one."""
    stem = source[:-3]
    for suffix in _SUFFIXES:
        if os.path.exists(stem + suffix):
            return stem + suffix
    return None


def use_source(source: str, compiled: str | None = None) -> bool:
    """Whether to import `source` rather than the compiled module beside it (there is one;
    `compiled`: its path, when the caller has looked it up already)."""
    if os.environ.get("CUDAPERF_PURE_PYTHON"):
        return True
    compiled = compiled or compiled_path(source)
    if compiled is None:
        return False
    try:
        return _stale(compiled, source)
    except OSError:
        return True


def _stale(compiled: str, source: str) -> bool:
    """Whether `compiled` was built from other code than `source` holds now: the source is newer
    (edited since the build, or only written after it by an installer) and its digest is not the
    one the build recorded. OSError where either file is missing."""
    if os.stat(compiled).st_mtime >= os.stat(source).st_mtime:
        return False
    return built_from(compiled) != source_digest(source)


# beside compiled modules: {compiled file name: sha256 of the source it was built from} (setup.py)
MANIFEST = "_compiled_from.json"
_MANIFESTS: dict[str, dict] = {}


def source_digest(path: str) -> str:
    import hashlib

    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return ""


def built_from(compiled: str) -> str | None:
    """The digest of the source `compiled` was built from, as the build recorded it; None if
    it recorded none (a build before the record existed, or a module copied by hand)."""
    directory = os.path.dirname(compiled)
    manifest = _MANIFESTS.get(directory)
    if manifest is None:
        import json

        try:
            with open(os.path.join(directory, MANIFEST), encoding="utf-8") as f:
                manifest = json.load(f)
        except (OSError, ValueError):
            manifest = {}
        if not isinstance(manifest, dict):
            manifest = {}
        _MANIFESTS[directory] = manifest
    return manifest.get(os.path.basename(compiled))


def record_build(compiled: str, source: str) -> None:
    """Note in the manifest beside `compiled` that it was built from `source` as it is now (the
    build calls this for each module it compiled or reused)."""
    import json

    path = os.path.join(os.path.dirname(compiled), MANIFEST)
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        manifest = {}
    manifest[os.path.basename(compiled)] = source_digest(source)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    _MANIFESTS.pop(os.path.dirname(compiled), None)


# Compiled modules that call another module's C functions (a `cimport` in their .pxd): loading one
# loads that module's C entry points, which its source form has not, so they run as source
# whenever it does (stale after an edit, or its optional build failed).
CIMPORTS = {"analyzer.access": ("symbolic",), "analyzer.models": ("symbolic",)}


def _needs_source(name: str, directory: str) -> bool:
    for dep in CIMPORTS.get(name, ()):
        source = os.path.join(directory, dep + ".py")
        compiled = compiled_path(source)
        if compiled is None or use_source(source, compiled):
            return True
    return False


class SourceWhenStale:
    """A meta-path finder: for the package's modules that have a compiled form, the source's spec
    when `use_source` says so; else nothing (the normal import, compiled if it exists)."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if not path or not name.startswith(_PREFIXES):
            return None
        leaf = name.rpartition(".")[2]
        for d in path:
            module = os.path.join(d, leaf + ".py")
            package = os.path.join(d, leaf, "__init__.py")
            for source, locations in ((module, None), (package, [os.path.join(d, leaf)])):
                compiled = compiled_path(source)
                if compiled is None or not os.path.exists(source):   # a helper built from a .pyx: see accelerator
                    continue
                if not use_source(source, compiled) and not _needs_source(name, d):
                    return None
                return importlib.util.spec_from_file_location(name, source, submodule_search_locations=locations)
        return None


def accelerator(module: str):
    """A compiled helper built from a .pyx (analyzer/_lanes.pyx -> analyzer._lanes), imported; or
    None where it was not built, was built before an edit of its .pyx, or CUDAPERF_PURE_PYTHON is
    set. Such helpers have no Python form: their callers keep a numpy version of the same code."""
    if os.environ.get("CUDAPERF_PURE_PYTHON"):
        return None
    package, _, leaf = module.rpartition(".")
    stem = os.path.join(os.path.dirname(sys.modules[package].__file__), leaf)
    compiled = compiled_path(stem + ".py")
    if compiled is None:
        return None
    try:
        if _stale(compiled, stem + ".pyx"):
            return None
    except FileNotFoundError:   # an installed wheel carries no .pyx: nothing to be stale against
        pass
    try:
        return importlib.import_module(module)
    except ImportError:         # built for another Python, say
        return None


def install() -> None:
    """Put the finder first on the import path (the packages' __init__ call this)."""
    if SourceWhenStale not in sys.meta_path:
        sys.meta_path.insert(0, SourceWhenStale)


def compiled_modules() -> dict[str, bool]:
    """Module name -> whether it runs compiled, for the package's modules loaded now that have a
    compiled form (for reports: the benchmarks record it)."""
    out = {}
    for name, mod in sorted(sys.modules.items()):
        if name not in PACKAGES and not name.startswith(_PREFIXES):
            continue
        f = getattr(mod, "__file__", None) or ""
        if f.endswith(_SUFFIXES):
            out[name] = True
        elif f.endswith(".py") and compiled_path(f) is not None:
            out[name] = False
    return out
