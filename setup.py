"""Optional compiled build of the analyzer's hot modules and two C loops (everything else is in
pyproject.toml).

The lint path is pure Python. At install, Cython compiles the modules below (the analyzer's hot
ones and the reward model's features and gates) from the same .py files (unchanged: the .pxd
files beside them only declare C types: symbolic's recursive helpers, access's walker) into
extension modules that Python imports instead of the sources: ~1.2x the lint speed. Three .pyx
files are C loops with a Python twin (numpy or `re`) in the module that uses them: the lane models'
per-warp counts (analyzer/_lanes.pyx), two text scans (analyzer/_scan.pyx: the static register
estimate's words, the reward gates' comment stripping) and the surrogate's few-row tree walk
(rewardmodel/_forest.pyx).
Without a C compiler or Cython, or with CUDAPERF_PURE_PYTHON=1, the install is pure Python and
gives the same results. A compiled module built from other code than its source holds now is
ignored (analyzer/_fresh.py: by the source digest the build records beside it).
"""
import os
import shutil
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))

COMPILED = [
    "analyzer/_records.py", "analyzer/symbolic.py", "analyzer/access.py", "analyzer/models.py",
    "analyzer/parse.py", "analyzer/lint.py", "analyzer/suppress.py", "analyzer/resources.py", "analyzer/vectorize.py",
    "analyzer/rules/__init__.py", "analyzer/rules/control.py", "analyzer/rules/memory.py",
    "analyzer/rules/shared.py", "analyzer/rules/occupancy.py", "analyzer/rules/precision.py",
    "analyzer/rules/parsing.py", "analyzer/rules/build.py", "analyzer/rules/half.py", "analyzer/rules/names.py",
    # the reward path's straight-line Python (features and gates around the analyzer's work)
    "rewardmodel/features.py", "rewardmodel/reward.py",
    # C loops with a Python twin in the module that imports them (analyzer/_fresh.py: accelerator)
    "analyzer/_lanes.pyx", "analyzer/_scan.pyx", "rewardmodel/_forest.pyx",
]


def extensions():
    if os.environ.get("CUDAPERF_PURE_PYTHON"):
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        return []
    # one Cython process per core (its C generation is ~1/6 of a build)
    exts = cythonize(COMPILED, quiet=True, nthreads=os.cpu_count() or 1, compiler_directives={
        "language_level": 3,
        # annotations document; they do not narrow what the code accepts (numpy ints pass for int)
        "annotation_typing": False,
    })
    for e in exts:
        e.optional = True      # a failed C build leaves that module in pure Python
        if sys.platform != "win32":
            # no debug information (Python's CFLAGS ask for -g): modules 6x smaller, the build
            # ~1/4 faster; profilers still see the functions' names
            e.extra_compile_args = ["-g0"]
    return exts


def _fresh():
    """analyzer/_fresh.py, loaded by path (the package itself is not importable while it builds)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_cudaperf_fresh", os.path.join(HERE, "analyzer", "_fresh.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class IncrementalBuildExt(build_ext):
    """An editable install (pip install -e, run by `make test`) builds in a fresh temporary
    directory each time, so every module would be compiled again (~80 s). A compiled module
    beside its source that is newer than its generated C file (cythonize regenerates that only
    for a changed source) is reused instead."""

    def finalize_options(self):
        super().finalize_options()
        # the C compiler on every core: one module at a time took ~6 min on 2 cores
        if not self.parallel:
            self.parallel = os.cpu_count() or 1

    def build_extension(self, ext):
        c_file = next((s for s in ext.sources if s.endswith(".c")), None)
        built = self.get_ext_filename(ext.name)     # beside the source, relative to this folder
        target = self.get_ext_fullpath(ext.name)
        if c_file and os.path.exists(built) and os.path.abspath(built) != os.path.abspath(target) and \
                os.path.getmtime(built) >= os.path.getmtime(c_file):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(built, target)
            return
        super().build_extension(ext)

    def run(self):
        super().run()
        # which source each compiled module came from, beside it, in the build (what a wheel
        # carries) and, for an editable install, in the source tree: an install may write a
        # source after its compiled module, and its date alone would mark that module stale
        fresh = _fresh()
        for ext in self.extensions:
            stem = os.path.join(HERE, *ext.name.split("."))
            # a module compiled from its .py, or a C helper from its .pyx (_fresh.accelerator)
            source = stem + ".py" if os.path.exists(stem + ".py") else stem + ".pyx"
            if not os.path.exists(source):
                continue
            name = os.path.basename(self.get_ext_filename(ext.name))
            places = [os.path.join(self.build_lib, *ext.name.split(".")[:-1], name)]
            if self.inplace:
                places.append(os.path.join(HERE, *ext.name.split(".")[:-1], name))
            for compiled in places:
                if os.path.exists(compiled):
                    fresh.record_build(compiled, source)


setup(ext_modules=extensions(), cmdclass={"build_ext": IncrementalBuildExt})
