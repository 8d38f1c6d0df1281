"""`torch` tasks: a PyTorch reference to rewrite in CUDA, in the KernelBench file layout.

A problem file is a Python module that defines

    class Model(nn.Module)      # the reference; `forward` is what a candidate must match
    def get_inputs()            # the forward's arguments (tensors built with torch.randn & co.)
    def get_init_inputs()       # Model's constructor arguments

and reads its problem sizes from module-level constants (`N = 4096`) when those functions
run. Sizes: a file may also define

    SIZES = {"small": {"N": 1024}, "large": {"N": 1 << 26}}

one task per entry, whose constants replace the module's own before `get_inputs` and
`get_init_inputs` are called (so constants must be read at call time, not bound into
default arguments). A file without SIZES (a plain KernelBench file) is one task, size
"default". Optional `ATOL` / `RTOL` constants override KernelBench's fp32 tolerance (1e-2).

Task ids are `torch/<file stem>/<size>`. Our suite lives in `rl/suites/torch/`; users add
their own with `import_torch_tasks` (`python -m rl tasks import DIR`), which validates each
file and copies it to `$CUDAPERF_TASKS` (default `~/.local/share/cudaperf/tasks/torch`).
Loading a problem file runs it: import only files you trust.
"""
from __future__ import annotations

import os
import re
import shutil
import sys
import types
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = ["TaskFileError", "TorchTask", "ImportReport", "SUITE_DIR", "default_import_dir", "load_problem",
           "tasks_from_file", "suite_tasks", "imported_tasks", "loader", "import_torch_tasks", "check_file",
           "cmd_import_torch"]

SUITE_DIR = Path(__file__).resolve().parent.parent / "suites" / "torch"
DEFAULT_ATOL = DEFAULT_RTOL = 1e-2      # KernelBench's fp32 tolerances
INIT_SEED = 42                          # parameters of Model (and ModelNew) are drawn under this seed
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_REQUIRED = ("Model", "get_inputs", "get_init_inputs")


class TaskFileError(ValueError):
    """A problem file that cannot be a task; the message is one line naming the file."""


def default_import_dir() -> Path:
    env = os.environ.get("CUDAPERF_TASKS")
    return Path(env).expanduser() if env else Path.home() / ".local" / "share" / "cudaperf" / "tasks" / "torch"


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")


def compile_file(path: Path, error: type[Exception]) -> tuple[str, types.CodeType]:
    """(text, code) of a user's Python file (a problem or a candidate); `error` with one line naming
    the file when it cannot be read or does not parse."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"{path}: cannot read ({_one_line(exc)})") from None
    try:
        return text, compile(text, str(path), "exec")
    except SyntaxError as exc:
        raise error(f"{path}:{exc.lineno}: Python does not parse: {exc.msg}") from None


def _exec_file(path: Path, tag: str) -> types.ModuleType:
    """Run a problem file as a fresh module of its own (registered under a unique name so that
    inspect and torch.compile can find its source)."""
    _, code = compile_file(path, TaskFileError)
    name = f"cudaperf_torch_task_{re.sub(r'[^A-Za-z0-9_]', '_', tag)}"
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except BaseException as exc:  # noqa: BLE001 - any failure of a user file is that file's error
        sys.modules.pop(name, None)
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise TaskFileError(f"{path}: running the file failed: {_one_line(exc)}") from None
    missing = [n for n in _REQUIRED if not callable(module.__dict__.get(n))]
    if missing:
        raise TaskFileError(f"{path}: does not define {', '.join(missing)} (a KernelBench problem file defines "
                            "Model, get_inputs and get_init_inputs)")
    return module


def _sizes(path: Path, module: types.ModuleType) -> dict[str, dict[str, Any]]:
    sizes = module.__dict__.get("SIZES")
    if sizes is None:
        return {"default": {}}
    if not isinstance(sizes, dict) or not sizes:
        raise TaskFileError(f"{path}: SIZES must be a non-empty dict of size name -> {{CONSTANT: value}}")
    for size, consts in sizes.items():
        if not isinstance(size, str) or not _NAME.match(size):
            raise TaskFileError(f"{path}: SIZES key {size!r} is not a plain name (letters, digits, _ . -)")
        if not isinstance(consts, dict):
            raise TaskFileError(f"{path}: SIZES[{size!r}] must be a dict of module constants, got "
                                f"{type(consts).__name__}")
        unknown = [k for k in consts if k not in module.__dict__]
        if unknown:
            raise TaskFileError(f"{path}: SIZES[{size!r}] sets {', '.join(map(str, unknown))}, which the file "
                                "does not define at module level")
    return sizes


def _description(path: Path, module: types.ModuleType) -> str:
    doc = (module.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else f"{path.stem} (PyTorch reference)"


def load_problem(path: str | Path, size: str = "default", tag: str | None = None) -> types.ModuleType:
    """The problem file run as a module with `size`'s constants in place."""
    path = Path(path)
    module = _exec_file(path, tag or f"{path.stem}_{size}")
    sizes = _sizes(path, module)
    if size not in sizes:
        raise TaskFileError(f"{path}: no size {size!r} (sizes: {', '.join(sizes)})")
    module.__dict__.update(sizes[size])
    return module


@dataclass(frozen=True)
class TorchTask:
    """One problem file at one size. Duck-types what the CLI and the env read of `rl.tasks.Task`
    (id, kind, description, candidates, size, atol, rtol, meta). Its speedups are over the
    reference run by PyTorch eager (and torch.compile); a problem with a raw-kernel port
    (`rl.tasks.torch_port`) also has a Sample baseline, the naive port, and candidates, which the
    RL environment, the profiler and `Replay` work on as on any other task."""

    id: str
    name: str
    path: Path
    size: str
    description: str = ""
    constants: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)
    atol: float = DEFAULT_ATOL
    rtol: float = DEFAULT_RTOL
    imported: bool = False
    kind: str = "torch"
    candidates: tuple = ()
    baseline: Any = None                  # the naive port's Sample when the problem has a port
    meta: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def family(self) -> str:
        return self.name

    def module(self) -> types.ModuleType:
        """The problem file run once for this task (cached per task id)."""
        return _module(self.path, self.size, self.id)

    def init_inputs(self) -> list:
        return list(self.module().get_init_inputs())

    def make_inputs(self, seed: int, device: str | Any = "cpu") -> list:
        """The forward's arguments drawn under `seed`, created on `device` directly ("meta": shapes only)."""
        import torch

        torch.manual_seed(seed)
        with torch.device(device):
            return list(self.module().get_inputs())

    def reference_model(self, device: str | Any = "cpu", seed: int = INIT_SEED):
        """Model(*get_init_inputs()) with its parameters drawn under `seed`, on `device`, in eval mode."""
        import torch

        mod = self.module()
        torch.manual_seed(seed)
        with torch.device(device):
            model = mod.Model(*self.init_inputs())
        return model.eval()

    def source(self) -> str:
        return self.path.read_text(encoding="utf-8")

    def prompt(self) -> str:
        """What a model is shown for this task (the `tasks show` text)."""
        consts = ", ".join(f"{k}={v}" for k, v in self.constants.items()) or "the file's own constants"
        return (f"Task {self.id}: {self.description}\n"
                f"Size {self.size}: {consts}. Tolerance atol={self.atol:g}, rtol={self.rtol:g}.\n\n"
                "Write a Python module defining `ModelNew` (same constructor and forward as `Model`) whose forward "
                "runs your own CUDA kernels, built with torch.utils.cpp_extension.load_inline. It is checked on 3 "
                "seeded inputs and timed against PyTorch eager and torch.compile.\n\n"
                f"Reference ({self.path.name}):\n```python\n{self.source().rstrip()}\n```\n")


@lru_cache(maxsize=256)
def _module(path: Path, size: str, task_id: str) -> types.ModuleType:
    return load_problem(path, size, tag=task_id)


def tasks_from_file(path: str | Path, imported: bool = False) -> list[TorchTask]:
    """One task per size of a problem file; TaskFileError (one line) when the file cannot be one."""
    path = Path(path)
    if not _NAME.match(path.stem):
        raise TaskFileError(f"{path}: the file name must be letters, digits, _ . - (it becomes the task id)")
    module = _exec_file(path, f"{path.stem}__probe")
    sys.modules.pop(module.__name__, None)
    sizes = _sizes(path, module)
    out = []
    for size, consts in sizes.items():
        atol = module.__dict__.get("ATOL", DEFAULT_ATOL)
        rtol = module.__dict__.get("RTOL", DEFAULT_RTOL)
        if not all(isinstance(v, (int, float)) and v >= 0 for v in (atol, rtol)):
            raise TaskFileError(f"{path}: ATOL and RTOL must be non-negative numbers")
        out.append(TorchTask(f"torch/{path.stem}/{size}", path.stem, path, size, _description(path, module),
                             dict(consts), float(atol), float(rtol), imported))
    return out


def check_file(path: str | Path, sizes: list[str] | None = None) -> list[TorchTask]:
    """tasks_from_file plus a shape-only run of every size: Model built and forward run on the meta
    device (no data, no time, whatever the size). Raises TaskFileError naming the file and size."""
    import torch

    tasks = tasks_from_file(path)
    for t in tasks:
        if sizes is not None and t.size not in sizes:
            continue
        try:
            inputs = t.make_inputs(0, "meta")
            model = t.reference_model("meta")
            with torch.no_grad():
                out = model(*inputs)
        except NotImplementedError:
            continue            # an op without a meta kernel: nothing wrong with the file, just unchecked
        except TaskFileError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise TaskFileError(f"{t.path}: size {t.size!r}: building Model or running forward failed: "
                                f"{_one_line(exc)}") from None
        if out is None:
            raise TaskFileError(f"{t.path}: size {t.size!r}: forward returns None (it must return the output)")
    return tasks


def _scan(directory: Path, imported: bool, strict: bool) -> dict[str, TorchTask]:
    out: dict[str, TorchTask] = {}
    if not directory.is_dir():
        return out
    for path in sorted(directory.glob("*.py")):
        if path.name.startswith("_"):
            continue
        try:
            tasks = tasks_from_file(path, imported)
        except TaskFileError as exc:
            if strict:
                raise
            print(f"warning: {exc}", file=sys.stderr)
            continue
        for t in tasks:
            out[t.id] = t
    return out


@lru_cache(maxsize=1)
def suite_tasks() -> dict[str, TorchTask]:
    """Our own problems (rl/suites/torch), each with its raw-kernel port where rl/suites/torch/ports
    has one (baseline and candidates: `rl.tasks.torch_port`); a broken one is a bug here, so it raises."""
    from .torch_port import with_port

    out = {}
    for tid, t in _scan(SUITE_DIR, imported=False, strict=True).items():
        try:
            out[tid] = with_port(t)
        except ValueError as exc:       # a broken port (TaskFileError) costs its problem the port, not the suite (tests check them)
            print(f"warning: {exc}", file=sys.stderr)
            out[tid] = t
    return out


@lru_cache(maxsize=8)
def _imported(directory: str, stamp: tuple) -> dict[str, TorchTask]:
    return _scan(Path(directory), imported=True, strict=False)


def imported_tasks(directory: str | Path | None = None) -> dict[str, TorchTask]:
    """The user's imported problems (a file that went bad since its import is skipped with a warning)."""
    d = Path(directory) if directory else default_import_dir()
    stamp = tuple((p.name, p.stat().st_mtime_ns) for p in sorted(d.glob("*.py"))) if d.is_dir() else ()
    return _imported(str(d), stamp)


def loader() -> dict[str, TorchTask]:
    """id -> task: the suite, then imported problems (an imported file never shadows a suite task)."""
    out = dict(imported_tasks())
    out.update(suite_tasks())
    return out


@dataclass
class ImportReport:
    imported: list[str] = field(default_factory=list)      # task ids
    files: list[str] = field(default_factory=list)         # destination paths
    errors: list[str] = field(default_factory=list)        # one line per bad file


def import_torch_tasks(src_dir: str | Path, dest_dir: str | Path | None = None) -> ImportReport:
    """Validate every .py problem file in src_dir and copy the good ones to dest_dir; one error
    line per bad file, the others still imported."""
    src = Path(src_dir)
    dest = Path(dest_dir) if dest_dir else default_import_dir()
    report = ImportReport()
    if not src.is_dir():
        report.errors.append(f"{src}: not a directory")
        return report
    files = sorted(p for p in src.glob("*.py") if not p.name.startswith("_"))
    if not files:
        report.errors.append(f"{src}: no .py problem files")
        return report
    suite = {t.name for t in suite_tasks().values()}
    for path in files:
        if path.stem in suite:
            report.errors.append(f"{path}: the name {path.stem!r} is taken by the built-in suite; rename the file")
            continue
        try:
            tasks = check_file(path)
        except TaskFileError as exc:
            report.errors.append(str(exc))
            continue
        dest.mkdir(parents=True, exist_ok=True)
        target = dest / path.name
        shutil.copyfile(path, target)
        report.files.append(str(target))
        report.imported.extend(t.id for t in tasks)
    if dest.is_dir():
        _imported.cache_clear()
    return report


def cmd_import_torch(src_dir: str, dest_dir: str | None = None) -> int:
    """`python -m rl tasks import DIR`: 0 all imported, 1 some files refused, 2 nothing imported."""
    report = import_torch_tasks(src_dir, dest_dir)
    for line in report.errors:
        print(f"error: {line}", file=sys.stderr)
    for tid in report.imported:
        print(f"imported {tid}")
    if report.imported:
        print(f"{len(report.files)} file(s), {len(report.imported)} task(s) -> "
              f"{Path(report.files[0]).parent}")
    if not report.imported:
        return 2
    return 1 if report.errors else 0
