"""`python -m analyzer lint|rules|explain`.

Exit codes: 0 clean, 1 findings, 2 usage or input error (missing path, no
CUDA files, binary or non-UTF-8 or oversized file, bad config). Input errors
are one line each on stderr; every other file's results are still printed.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

# Set before numpy loads (the imports below): OpenBLAS starts one thread per core when it loads,
# which the analyzer's small arrays never use (on the 16-core H200 host the cold start's median
# went 363 -> 342 ms; bench/README.md); `--jobs` workers inherit it. A user's own setting is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from . import ParserUnavailable  # noqa: E402 - after the environment above
from .config import FAIL_ON, Config, ConfigError, find, load  # noqa: E402
from .rules import Options, all_rules, select  # noqa: E402

if TYPE_CHECKING:       # the lint machinery is imported when a lint runs, not at start-up
    from .lint import FileResult, LaunchSpec, LintSettings

CUDA_SUFFIXES = {".cu", ".cuh"}
SEVERITY_RANK = {s: i for i, s in enumerate(FAIL_ON)}    # error 0, warning 1, info 2
DEFAULT_MAX_BYTES = 8 << 20
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class UsageError(Exception):
    pass


@dataclasses.dataclass
class InputError:
    path: str
    message: str

    def line(self) -> str:
        return f"{self.path}: error: {self.message}"


# ------------------------------------------------------------------ inputs

def collect(paths: list[str], cfg: Config, include_python: bool) -> tuple[list[Path], list[InputError]]:
    files: list[Path] = []
    errors: list[InputError] = []
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            errors.append(InputError(raw, "no such file or directory"))
            continue
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and (
                f.suffix in CUDA_SUFFIXES or (include_python and f.suffix == ".py")) and not cfg.excluded(f)
                and not any(part.startswith(".") for part in f.relative_to(p).parts[:-1]))
            if not found:
                kinds = "*.cu, *.cuh" + (", *.py" if include_python else "")
                errors.append(InputError(raw, f"no CUDA files ({kinds}) under this directory"))
            files.extend(found)
        elif not cfg.excluded(p):
            files.append(p)
    unique = list(dict.fromkeys(files))
    return unique, errors


def read(path: Path, max_bytes: int) -> tuple[str | None, InputError | None]:
    try:
        size = path.stat().st_size
        if size > max_bytes:
            return None, InputError(str(path), f"file is {size / 1e6:.1f} MB, over the {max_bytes / 1e6:.0f} MB limit "
                                               f"(--max-file-size)")
        data = path.read_bytes()
    except OSError as exc:
        return None, InputError(str(path), f"cannot read: {exc.strerror or exc}")
    if b"\x00" in data[:8192]:
        return None, InputError(str(path), "binary file, not CUDA source")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        return None, InputError(str(path), f"not UTF-8: byte 0x{data[exc.start]:02x} at line {line}")
    return text, None


# ------------------------------------------------------------------ lint

def _ints(text: str, what: str) -> tuple[int, int, int]:
    try:
        vals = [int(v) for v in text.replace("x", ",").split(",") if v.strip()]
    except ValueError:
        raise UsageError(f"{what} must be like 256 or 32,8 or 32x8x1, got {text!r}") from None
    if not 1 <= len(vals) <= 3 or any(v <= 0 for v in vals):
        raise UsageError(f"{what} must be 1 to 3 positive integers, got {text!r}")
    vals += [1] * (3 - len(vals))
    from . import models    # imported by the lint command already

    # a launch beyond CUDA's limits would not run, so there is nothing to estimate
    problem = models.launch_dims_problem(what.lstrip("-"), vals)
    if problem:
        raise UsageError(f"{what} {text!r} is beyond CUDA's limits: {problem}")
    return tuple(vals)  # type: ignore[return-value]


def _args(items: list[str]) -> dict[str, int | float]:
    out: dict[str, int | float] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"--arg takes NAME=VALUE, got {item!r}")
        try:
            out[name.strip()] = int(value, 0)
        except ValueError:
            try:
                out[name.strip()] = float(value)
            except ValueError:
                raise UsageError(f"--arg {name}: {value!r} is not a number") from None
    return out


@dataclasses.dataclass(frozen=True)
class FileJob:
    """One file to lint, with everything a worker process needs (picklable: rules go by code)."""
    path: Path
    codes: tuple[str, ...]           # the rules chosen for every file, before per-file ignores
    cfg: Config
    settings: LintSettings
    default_launch: LaunchSpec | None
    max_bytes: int
    named: bool = True               # given by name, not found in a directory (a .py with no CUDA: say so)
    configured: dict | None = None   # the config's [launch.NAME] tables as launch specs (config_launches)


@dataclasses.dataclass
class FileOutcome:
    result: FileResult | None = None
    error: InputError | None = None
    notes: list[str] = dataclasses.field(default_factory=list)


def lint_file(job: FileJob) -> FileOutcome:
    """Read and lint one file (a .cu/.cuh file, or the CUDA strings of a .py file). A bug of ours
    that a file sets off is that file's one-line error: the other files' results still count."""
    try:
        return _lint_file(job)
    except ParserUnavailable:   # the whole run cannot proceed: main says so once
        raise
    except Exception as exc:    # noqa: BLE001 -- any internal error, reported per file
        import traceback
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return FileOutcome(error=InputError(str(job.path), f"internal error, please report: {type(exc).__name__}: "
                                            f"{exc} (at {Path(where.filename).name}:{where.lineno})"))


def _lint_file(job: FileJob) -> FileOutcome:
    from .directives import device_macros, with_defines
    from .lint import FileResult, lint_source
    from .pyextract import extract_file

    path = job.path
    text, err = read(path, job.max_bytes)
    if err:
        return FileOutcome(error=err)
    display = os.path.relpath(path) if not os.path.isabs(str(path)) or str(path).startswith(os.getcwd()) else str(path)
    if not text.strip():
        if path.suffix == ".py" and not job.named:     # an empty __init__.py that --python came across
            return FileOutcome(FileResult(display))
        return FileOutcome(FileResult(display), notes=[f"{display}: note: empty file, nothing to lint"])
    registry = all_rules()
    extra_ignores = job.cfg.ignores_for(path)
    per_file = {c: registry[c] for c in job.codes
                if not any(c.startswith(p.upper()) for p in extra_ignores)}
    try:
        found = extract_file(path.name, text)     # a .py file's strings, a reply's code blocks; None: CUDA
    except SyntaxError as exc:
        if not job.named:   # a broken Python file with no kernel in it, met while looking: not ours to judge
            return FileOutcome(FileResult(display))
        return FileOutcome(error=InputError(display, f"Python does not parse: {exc.msg} (line {exc.lineno})"))
    if found is not None and not found.embedded and path.suffix != ".py":
        return FileOutcome(FileResult(display), notes=[
            f"{display}: note: no code block holding a __global__ kernel (```cuda, ```cpp, ```python...)"])
    if found is not None:
        embedded, skipped = found.embedded, found.skipped
        merged = FileResult(display)
        merged.notes.extend(f"{display}:{line}: note: {note}" if line else f"{display}: note: {note}"
                            for line, note in found.notes)
        merged.notes.extend(f"{display}:{line}: note: {call}(...) takes CUDA this file does not spell out "
                            f"(read from a file, built by a call, bound elsewhere): not linted" for line, call in skipped)
        if not embedded and not skipped and job.named:
            merged.notes.append(f"{display}: note: no CUDA found (strings passed to load_inline, RawKernel, "
                                f"RawModule, SourceModule, ElementwiseKernel, ReductionKernel, or any holding "
                                f"a __global__ kernel)")
        for emb in embedded:
            # load_inline's build defines PyTorch's flags (CP707 reads them)
            macros = with_defines(device_macros(job.settings.arch), emb.defines) if emb.defines else None
            sub = lint_source(emb.source, display, settings=job.settings, rules=per_file,
                              default_launch=job.default_launch, configured=job.configured, macros=macros)
            for f in sub.findings:
                line, col = emb.to_python(f.line, f.col)
                fix = tuple(dataclasses.replace(e, line=at[0], col=at[1]) for e in f.fix
                            for at in [emb.to_python(e.line, e.col)])
                merged.findings.append(dataclasses.replace(f, line=line, col=col, message=emb.text_to_python(f.message),
                                                           fix=fix))
            for k in sub.kernels:
                merged.kernels.append(dataclasses.replace(k, line=emb.to_python(k.line, 1)[0],
                                                          launch_source=emb.text_to_python(k.launch_source)))
            merged.notes.extend(emb.note_to_python(n, display) for n in sub.notes)
            merged.suppressed += sub.suppressed
        return FileOutcome(merged, notes=list(merged.notes))
    res = lint_source(text, display, settings=job.settings, rules=per_file, default_launch=job.default_launch,
                      configured=job.configured)
    res.contexts = []
    return FileOutcome(res, notes=list(res.notes))


def config_launches(cfg: Config):
    """The config file's [launch.NAME] tables as launch specs."""
    if not cfg.launches:
        return None
    from .lint import LaunchSpec

    where = cfg.path.name if cfg.path else "the config"
    return {name: LaunchSpec(v.get("block"), v.get("grid"), v.get("smem"), v.get("args", {}),
                             f"{where} [launch.{name}]") for name, v in cfg.launches.items()}


# files per worker below which starting another process costs more than it saves (the CLI on 4-64
# of bench/lint_speed.py's files, 2-core VM: 8 files ran as fast in one process as in two)
FILES_PER_WORKER = 8


def default_workers(files: int) -> int:
    """Worker processes when neither --jobs nor the config says: one for a few files, and under
    pre-commit (which runs its hooks in parallel itself); else one per FILES_PER_WORKER files, at
    most one per core."""
    if os.environ.get("PRE_COMMIT"):
        return 1
    return max(1, min(os.cpu_count() or 1, files // FILES_PER_WORKER))


def _run(jobs: list[FileJob], workers: int):
    """Outcomes in the order of `jobs`: in this process, or `workers` processes at a time (0: one per
    core). A worker that dies (a crash in the parser) costs no results: what the pool did not
    answer is linted here, one file at a time."""
    workers = (os.cpu_count() or 1) if workers == 0 else workers
    if workers <= 1 or len(jobs) < 2:
        return [lint_file(j) for j in jobs]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    # fork: the workers start with the parser and rules already imported (spawn re-imports them)
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    done: list[FileOutcome] = []
    try:
        with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=multiprocessing.get_context(method)) as pool:
            for outcome in pool.map(lint_file, jobs, chunksize=max(1, len(jobs) // (8 * workers))):
                done.append(outcome)
    except BrokenProcessPool:
        print(f"note: a lint worker died after {len(done)} of {len(jobs)} files; linting the rest in this process",
              file=sys.stderr)
    return done + [lint_file(j) for j in jobs[len(done):]]


def _fixes(results, linted: dict, baseline_path, accepted, write: bool, errors: list) -> tuple[str, int, list[str]]:
    """Apply the fixes the reported findings carry (not those the baseline accepts) to their files,
    or only show them: (unified diff, findings fixed, paths of the results whose files changed)."""
    import copy

    from . import baseline, fix, report

    reported = [copy.copy(r) for r in results]      # as the report will have them: the baseline's left out
    if accepted is not None:
        baseline.apply(baseline_path, accepted, reported)
    diff, fixed, changed = [], 0, []
    for r in reported:
        edits = [e for f in r.findings for e in f.fix]
        if not edits:
            continue
        path = linted[r.path].path
        try:
            before = path.read_bytes()
            after, applied = fix.apply(before, edits)
            if not applied:
                continue
            if write:
                fix.write_atomically(path, after)
        except OSError as exc:
            errors.append(InputError(r.path, f"cannot fix: {exc.strerror or exc}"))
            continue
        fixed += sum(1 for f in report.shown(r.findings) if f.fix and all(e in applied for e in f.fix))
        changed.append(r.path)
        diff.append(fix.unified_diff(r.path, before, after))
    return "".join(diff), fixed, changed


def lint_command(ns: argparse.Namespace) -> int:
    from .lint import LaunchSpec, LintSettings, FileResult
    from . import report

    cfg = Config()
    if not ns.isolated:
        cfg_path = Path(ns.config) if ns.config else find(Path(ns.paths[0]) if ns.paths else Path.cwd())
        if ns.config and not cfg_path.is_file():
            raise UsageError(f"config file not found: {ns.config}")
        if cfg_path is not None:
            cfg = load(cfg_path)
    rules = all_rules()
    try:
        chosen = select(rules, ns.select or cfg.select, (cfg.ignore or []) + (ns.ignore or []))
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    arch = ns.arch or cfg.arch or "sm_90"
    from . import models
    try:
        models.arch(arch)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    block_size = ns.block_size or cfg.block_size or 256
    if not 1 <= block_size <= 1024:
        raise UsageError(f"--block-size must be 1..1024, got {block_size}")
    options = Options(min_occupancy=ns.min_occupancy if ns.min_occupancy is not None else
                      (cfg.min_occupancy if cfg.min_occupancy is not None else Options.min_occupancy))
    settings = LintSettings(arch=arch, block_size=block_size, ptxas=ns.ptxas or cfg.ptxas, options=options)
    spec = LaunchSpec(block=_ints(ns.block, "--block") if ns.block else None,
                      grid=_ints(ns.grid, "--grid") if ns.grid else None, args=_args(ns.arg or []))
    use_spec = ns.block or ns.grid or ns.arg

    workers = ns.jobs if ns.jobs is not None else cfg.jobs
    if workers is not None and workers < 0:
        raise UsageError(f"--jobs must be 0 (one per core) or more, got {workers}")
    from . import baseline

    baseline_path = Path(ns.baseline) if ns.baseline else (cfg.root / cfg.baseline if cfg.baseline else None)
    accepted = None
    if baseline_path is not None and not ns.write_baseline:
        try:
            accepted = baseline.load(baseline_path)     # before the work: a bad file stops the run at once
        except baseline.BaselineError as exc:
            raise UsageError(str(exc)) from None
    files, errors = collect(ns.paths, cfg, ns.python)
    given = {Path(p) for p in ns.paths}
    configured = config_launches(cfg)
    # a .py file is "named" (no CUDA in it: say so) unless --python asked to look through Python files
    jobs = [FileJob(path, tuple(chosen), cfg, settings, spec if use_spec else None, ns.max_file_size,
                    path in given and not (ns.python and path.suffix == ".py"),
                    configured) for path in files]
    if ns.write_baseline and (ns.fix or ns.diff):
        raise UsageError("--write-baseline accepts the findings as they are: not with --fix or --diff")
    results: list[FileResult] = []
    notes: list[str] = []
    linted: dict[str, FileJob] = {}      # a result's path -> its job (for --fix)
    for job, outcome in zip(jobs, _run(jobs, default_workers(len(jobs)) if workers is None else workers)):
        if outcome.error:
            errors.append(outcome.error)
        if outcome.result is not None:
            results.append(outcome.result)
            linted[outcome.result.path] = job
        notes.extend(outcome.notes)
    if ns.fix or ns.diff:
        diff, fixed, changed = _fixes(results, linted, baseline_path, accepted, write=not ns.diff, errors=errors)
        files_word = f"{len(changed)} file{'s' * (len(changed) != 1)}"
        if ns.diff:
            for e in errors:
                print(e.line(), file=sys.stderr)
            sys.stdout.write(diff)
            print(f"{fixed} fix{'es' * (fixed != 1)} would change {files_word} (--fix applies them)" if fixed else
                  "no fixes to apply", file=sys.stderr)
            return EXIT_ERROR if errors else (EXIT_FINDINGS if fixed and not ns.exit_zero else EXIT_CLEAN)
        if changed:   # lint what was fixed again: the report is of the files as they are now
            again = dict(zip(changed, _run([linted[p] for p in changed], 1)))
            results = [again[r.path].result if r.path in again and again[r.path].result is not None else r
                       for r in results]
            notes.append(f"fixed {fixed} finding{'s' * (fixed != 1)} in {files_word}")

    for e in errors:
        print(e.line(), file=sys.stderr)
    for n in notes:
        print(n, file=sys.stderr)
    if ns.write_baseline:
        n = baseline.write(Path(ns.write_baseline), results)
        print(f"wrote {n} finding{'s' * (n != 1)} of {len(results)} file{'s' * (len(results) != 1)} to "
              f"{ns.write_baseline}", file=sys.stderr)
        return EXIT_ERROR if errors else EXIT_CLEAN
    accepted_n = baseline.apply(baseline_path, accepted, results) if accepted is not None else 0
    err_dicts = [{"path": e.path, "message": e.message} for e in errors]
    if ns.format == "json":
        out = report.render_json(results, err_dicts, accepted_n)
    elif ns.format == "sarif":
        out = report.render_sarif(results, chosen, err_dicts)
    elif ns.format == "github":
        out = report.render_github(results, err_dicts)
    else:
        out = report.render_text(results, show_estimates=ns.show_estimates, statistics=ns.statistics,
                                 baselined=accepted_n, errors=len(errors))
    if ns.output:
        Path(ns.output).write_text(out)
    else:
        sys.stdout.write(out)
    if errors:
        return EXIT_ERROR
    fail_on = ns.fail_on or cfg.fail_on or "info"
    failing = SEVERITY_RANK[fail_on]
    if any(SEVERITY_RANK[f.severity] <= failing for r in results for f in r.findings) and not ns.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


# ------------------------------------------------------------------ rules / explain

def rules_command(ns: argparse.Namespace) -> int:
    rules = all_rules()
    if ns.explain:
        return explain(ns.explain)
    if ns.format == "json":
        print(json.dumps([{"code": r.code, "name": r.name, "severity": r.severity, "summary": r.summary,
                           "doc": r.doc.strip(), "fixable": r.fixable} for r in rules.values()], indent=2))
        return EXIT_CLEAN
    width = max(len(r.name) for r in rules.values())
    for r in rules.values():
        print(f"{r.code}  {r.name:<{width}}  {r.severity:<7}  {r.summary}")
    return EXIT_CLEAN


def explain(code: str) -> int:
    rules = all_rules()
    r = rules.get(code.upper())
    if r is None:
        raise UsageError(f"unknown rule {code!r}; `python -m analyzer rules` lists them")
    print(r.explain())
    return EXIT_CLEAN


# ------------------------------------------------------------------ entry

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m analyzer", description="Static performance analysis of CUDA kernels.")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    p.add_argument("--explain", metavar="CODE", help="explain a rule and exit")
    sub = p.add_subparsers(dest="command")

    lint = sub.add_parser("lint", help="lint CUDA files, directories, or Python files with inline CUDA")
    lint.add_argument("paths", nargs="*", help="files or directories (*.cu, *.cuh; *.py given by name)")
    lint.add_argument("--format", choices=("text", "json", "sarif", "github"), default="text",
                      help="github: workflow commands, annotations on a pull request's diff in GitHub Actions")
    lint.add_argument("--select", type=lambda s: s.split(","), help="rule codes or prefixes to run (default: all)")
    lint.add_argument("--ignore", type=lambda s: s.split(","), help="rule codes or prefixes to skip")
    lint.add_argument("--arch", help="target: sm_80, sm_86, sm_89, sm_90 (default sm_90)")
    lint.add_argument("--block-size", type=int, help="threads per block where no launch site or __launch_bounds__ says (default 256)")
    lint.add_argument("--block", help="block shape for every kernel, e.g. 32,8")
    lint.add_argument("--grid", help="grid shape for every kernel, e.g. 1024 or 64,64")
    lint.add_argument("--arg", action="append", metavar="NAME=VALUE", help="value of a scalar kernel parameter (repeatable)")
    lint.add_argument("--ptxas", action="store_true", help="registers and spills from ptxas (NVRTC or nvcc; slower)")
    lint.add_argument("--min-occupancy", type=float, help="OC601 threshold (default 0.25)")
    lint.add_argument("--config", help="config file (default: nearest .cudaperf.toml or pyproject.toml [tool.cudaperf])")
    lint.add_argument("--isolated", action="store_true", help="ignore config files")
    lint.add_argument("--python", action="store_true", help="also scan *.py files in directories for inline CUDA "
                      "(and say nothing of a .py file, named or found, that holds none: the pre-commit hook for Python)")
    lint.add_argument("--show-estimates", action="store_true", help="print each kernel's estimates (text format)")
    lint.add_argument("--statistics", action="store_true", help="count findings per rule")
    lint.add_argument("--exit-zero", action="store_true", help="exit 0 even with findings")
    lint.add_argument("--fail-on", choices=FAIL_ON,
                      help="exit 1 only for findings of this severity or worse (default info: any finding); "
                           "the others are still reported")
    lint.add_argument("--max-file-size", type=int, default=DEFAULT_MAX_BYTES, help="skip larger files (bytes)")
    lint.add_argument("--jobs", "-j", type=int, metavar="N",
                      help="lint N files at a time in worker processes (0: one per core; default: the config's jobs, "
                           "else one worker per 8 files up to one per core, and 1 under pre-commit)")
    lint.add_argument("--fix", action="store_true",
                      help="apply the fixes that findings carry (FP501's `f` suffix), then report what is left")
    lint.add_argument("--diff", action="store_true",
                      help="print the fixes --fix would apply as a unified diff and change nothing "
                           "(exit 1 if there are any)")
    lint.add_argument("--output", "-o", help="write the report to a file")
    lint.add_argument("--baseline", metavar="FILE", help="leave out the findings this baseline file accepts "
                      "(default: the config's baseline)")
    lint.add_argument("--write-baseline", metavar="FILE", help="accept every finding now: write them to FILE and exit 0")
    lint.add_argument("--explain", metavar="CODE", help="explain a rule and exit")

    rules = sub.add_parser("rules", help="list the rules")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.add_argument("--explain", metavar="CODE", help="explain one rule")

    ex = sub.add_parser("explain", help="explain a rule")
    ex.add_argument("code")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    ns = parser.parse_args(argv)
    try:
        if ns.version:
            from .report import _version
            print(f"cudaperf {_version()}")
            return EXIT_CLEAN
        if ns.explain:
            return explain(ns.explain)
        if ns.command == "lint":
            if ns.explain:
                return explain(ns.explain)
            if not ns.paths:
                raise UsageError("lint needs at least one path")
            return lint_command(ns)
        if ns.command == "rules":
            return rules_command(ns)
        if ns.command == "explain":
            return explain(ns.code)
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except ParserUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_CLEAN
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def lint_main() -> int:
    """`cudaperf-lint FILES...`: the pre-commit entry point (`lint` implied)."""
    return main(["lint", *sys.argv[1:]])
