"""Kind `c`: sequential C functions to port to CUDA, one `Task` per (function, size).

A task is three files (docs/c-tasks.md): NAME.c (the reference), NAME.cu (a naive CUDA port,
the baseline every speedup is measured against) and NAME.toml (arguments, sizes, inputs,
tolerance, cost, the port's launch). The task's candidates are Samples like a corpus
family's, so the reward core, the environment, the profiler and the oracles work on them
unchanged; their problem function (`problem` below) builds the seeded inputs and runs the C
reference for the expected outputs.

Our suite lives in rl/suites/c; `import_c_tasks` validates and copies more into the import
directory ($CUDAPERF_TASKS/c, default ~/.local/share/cudaperf/tasks/c); `loader()` returns both.
"""
from __future__ import annotations

import dataclasses
import os
import re
import shutil
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable

from analyzer.profile.spec import Buffer, Problem, Scalar
from corpus.families.base import Sample

from . import Task
from .c_ref import CReferenceError, CTiming, compile_reference, expected_outputs, load_timings, make_inputs, \
    store_timing, time_reference
from .c_spec import CTaskSpec, TaskFileError, read_spec

__all__ = ["SUITE_DIR", "VARIANTS_DIR", "variant_files", "variant_params", "import_dir", "load_c_tasks", "loader", "problem", "c_reference_ms", "c_reference_timing",
           "import_c_tasks", "ImportReport", "spec_of", "TaskFileError"]

SUITE_DIR = Path(__file__).resolve().parent.parent / "suites" / "c"
PROBLEM = "rl.tasks.c_kind:problem"


def import_dir() -> Path:
    """Where imported c tasks live: $CUDAPERF_TASKS/c, else ~/.local/share/cudaperf/tasks/c."""
    root = os.environ.get("CUDAPERF_TASKS") or os.path.join(os.path.expanduser("~"), ".local", "share", "cudaperf",
                                                            "tasks")
    return Path(root) / "c"


def _task_files(d: Path) -> list[Path]:
    return sorted(d.glob("*.toml")) if d.is_dir() else []


def _samples(spec: CTaskSpec, seed: int | None = None) -> dict[str, Sample]:
    """size -> the naive port's Sample at that size."""
    seed = spec.seed if seed is None else seed
    out = {}
    for size in spec.sizes:
        args = tuple(Buffer(a.name, a.dtype, spec.length(a, size), a.kind) if a.is_buffer
                     else Scalar(a.name, a.dtype, spec.scalar(a, size)) for a in spec.args)
        grid, block, smem = spec.launch(size)
        nbytes, flops = spec.cost(size)
        out[size] = Sample(
            family=f"c_{spec.name}", variant="naive_port", size=size, source=spec.cu_source, kernel=spec.kernel,
            grid=grid, block=block, args=args, problem=PROBLEM,
            problem_kwargs={"task": spec.name, "size": size, "seed": seed}, smem=smem,
            params={"kind": "naive_port"}, bytes=nbytes, flops=flops, atol=spec.atol, rtol=spec.rtol,
            baseline=True, origin="family")
    return out


VARIANTS_DIR = SUITE_DIR / "variants"
_PARAMS = re.compile(r"^[ \t]*//[ \t]*params[ \t]*:(.*)$", re.M)


def _param_value(text: str) -> int | str:
    return int(text) if re.fullmatch(r"-?\d+", text) else text


def variant_files(spec: CTaskSpec) -> list[Path]:
    """rl/suites/c/variants/NAME/VARIANT.cu: our own candidates for the task, sorted by name.
    An imported task has none unless its folder holds a variants/NAME directory too."""
    d = spec.path.parent / "variants" / spec.name
    return sorted(d.glob("*.cu")) if d.is_dir() else []


def variant_params(text: str) -> dict[str, int | str]:
    """The `// params: key=value ...` line of a variant file (what `rl.tasks.neighbours` moves along)."""
    m = _PARAMS.search(text)
    if m is None:
        return {}
    out: dict[str, int | str] = {}
    for item in m.group(1).split():
        key, sep, value = item.partition("=")
        if not sep:
            raise TaskFileError(f"params item {item!r} is not key=value")
        out[key] = _param_value(value)
    return out


def _variants(spec: CTaskSpec, task: Task) -> list[Sample]:
    """The task's variants at its size, read as a model's reply would be (parse_submission)."""
    from rl.submission import SubmissionError, parse_submission

    out = []
    for path in variant_files(spec):
        text = path.read_text()
        try:
            s = parse_submission(task, text)
            params = variant_params(text)
        except (SubmissionError, TaskFileError) as exc:
            raise TaskFileError(f"{path}: {exc}") from None
        out.append(dataclasses.replace(s, variant=path.stem, params=params or {"kind": path.stem}, origin="family",
                                       style="c_variant"))
    return out


def _tasks_of(spec: CTaskSpec) -> dict[str, Task]:
    out = {}
    for size, s in _samples(spec).items():
        tid = f"c/{spec.name}/{size}"
        bare = Task(tid, "c", s, (s,))
        out[tid] = Task(tid, "c", s, (s, *_variants(spec, bare)), description=spec.description,
                        meta={"c_source": spec.c_source, "function": spec.function, "c_time_ms": None,
                              "sizes": dict(spec.sizes[size]), "path": str(spec.path)})
    return out


def load_c_tasks(dirs: Iterable[str | Path], errors: list[str] | None = None) -> dict[str, Task]:
    """task id -> Task for every NAME.toml in `dirs` (earlier dirs win a name clash).
    A bad file raises TaskFileError, or, when `errors` is a list, is skipped and its one-line
    error appended there."""
    out: dict[str, Task] = {}
    seen: set[str] = set()
    for d in dirs:
        for path in _task_files(Path(d)):
            if path.stem in seen:
                continue
            try:
                spec = read_spec(path)
            except TaskFileError as exc:
                if errors is None:
                    raise
                errors.append(str(exc))
                continue
            seen.add(spec.name)
            out.update(_tasks_of(spec))
    return out


_SPECS: dict[str, CTaskSpec] = {}


def spec_of(name: str) -> CTaskSpec:
    """The spec of task NAME: the suite first, then the import directory."""
    hit = _SPECS.get(name)
    if hit is not None:
        return hit
    for d in (SUITE_DIR, import_dir()):
        path = d / f"{name}.toml"
        if path.is_file():
            _SPECS[name] = read_spec(path)
            return _SPECS[name]
    raise KeyError(f"no c task {name!r} in {SUITE_DIR} or {import_dir()}")


@lru_cache(maxsize=1)
def loader() -> dict[str, Task]:
    """The suite's tasks and the imported ones (for `rl.tasks.register_kind("c", loader)`).
    A bad imported file is skipped with a warning; a bad suite file is our bug and raises."""
    out = load_c_tasks([SUITE_DIR])
    errors: list[str] = []
    for tid, t in load_c_tasks([import_dir()], errors).items():
        if tid in out:
            errors.append(f"{t.meta['path']}: task {t.baseline.family[2:]!r} clashes with a suite task; skipped")
            continue
        out[tid] = t
    for e in errors:
        warnings.warn(e, stacklevel=2)
    return out


def problem(task: str, size: str, seed: int) -> Problem:
    """The profiler's problem function: seeded inputs and the C reference's outputs."""
    spec = spec_of(task)
    inputs = make_inputs(spec, size, seed)
    expected = expected_outputs(spec, size, seed, inputs)
    kinds = {a.name: a.kind for a in spec.args}
    return Problem(inputs={k: v for k, v in inputs.items() if kinds[k] in ("in", "inout")}, expected=expected)


def _spec_and_size(task: Task) -> tuple[CTaskSpec, str, int]:
    if task.kind != "c":
        raise ValueError(f"{task.id} is a {task.kind} task, not a c task")
    kw = task.baseline.problem_kwargs
    return spec_of(kw["task"]), kw["size"], int(kw["seed"])


def c_reference_timing(task: Task, reps: int = 5, refresh: bool = False) -> CTiming:
    """The -O3 C reference's time at the task's size on this CPU (one core), with the CPU model.
    Stored in the cache beside the expected outputs and reused unless `refresh`."""
    from .c_ref import cpu_model, expected_key

    spec, size, seed = _spec_and_size(task)
    key = f"{task.id}|{expected_key(spec, size, seed)}|{cpu_model()}"
    if not refresh:
        hit = load_timings().get(key)
        if hit is not None:
            return CTiming(**hit)
    t = time_reference(spec, size, seed, reps)
    store_timing(key, t)
    return t


def c_reference_ms(task: Task, reps: int = 5, refresh: bool = False) -> float:
    """Milliseconds the -O3 C reference takes at the task's size on this CPU (see c_reference_timing)."""
    return c_reference_timing(task, reps, refresh).ms


# --------------------------------------------------------------------------- import
@dataclass
class ImportReport:
    imported: list[str] = field(default_factory=list)      # task names copied in
    errors: list[str] = field(default_factory=list)        # one line per bad file: "path: what is wrong"


def nvrtc_error(source: str, kernel: str, where: str) -> str:
    """'' when `kernel` of `source` compiles with NVRTC (or NVRTC is absent: nothing to check
    with), else one line: WHERE: NVRTC failed: the log's first error."""
    from analyzer.profile import build, toolkit

    if not toolkit.have_nvrtc():
        return ""
    res = build.build(source, kernel)
    if res.ok:
        return ""
    first = next((ln for ln in res.log.splitlines() if "error" in ln.lower()), res.log.strip()[:200])
    return f"{where}: NVRTC failed: {first.strip()}"


def import_c_tasks(src_dir: str | Path, dest_dir: str | Path | None = None, compile: bool = True) -> ImportReport:
    """Validate every NAME.toml (+ .c + .cu) in src_dir and copy the good ones into dest_dir
    (default: import_dir()). Each bad file costs itself only: its one-line error is reported.
    With `compile`, the C reference must build with gcc and the port with NVRTC (when present)."""
    src, dest = Path(src_dir), Path(dest_dir) if dest_dir is not None else import_dir()
    report = ImportReport()
    if not src.is_dir():
        report.errors.append(f"{src}: not a directory")
        return report
    files = _task_files(src)
    if not files:
        report.errors.append(f"{src}: no task files (NAME.toml beside NAME.c and NAME.cu)")
    suite = {p.stem for p in _task_files(SUITE_DIR)} if dest.resolve() != SUITE_DIR else set()
    for path in files:
        try:
            spec = read_spec(path)
            if spec.name in suite:
                raise TaskFileError(f"{path}: a suite task is already named {spec.name!r}; rename the files")
            if compile:
                compile_reference(spec)
                err = nvrtc_error(spec.cu_source, spec.kernel, str(spec.cu_path))
                if err:
                    raise TaskFileError(err)
        except (TaskFileError, CReferenceError) as exc:
            report.errors.append(str(exc))
            continue
        dest.mkdir(parents=True, exist_ok=True)
        for p in (spec.path, spec.c_path, spec.cu_path):
            shutil.copyfile(p, dest / p.name)
        _SPECS.pop(spec.name, None)
        report.imported.append(spec.name)
    loader.cache_clear()
    return report
