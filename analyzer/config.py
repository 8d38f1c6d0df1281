"""Settings from the repository: `.cudaperf.toml`, or `[tool.cudaperf]` in `pyproject.toml`.

The nearest such file above the first linted path (or the working directory)
wins. Keys (all optional):

    select = ["GM", "SM201"]        # codes or prefixes; default: all rules
    ignore = ["GM103"]
    arch = "sm_90"                  # sm_80, sm_86, sm_89, sm_90
    block-size = 256                # threads per block where no launch tells
    ptxas = false                   # registers/spills from ptxas (slower); see analyzer.resources
    exclude = ["third_party/**"]    # glob patterns, relative to the config file
    min-occupancy = 0.25
    baseline = ".cudaperf-baseline.json"   # findings accepted (analyzer/baseline.py), relative to this file
    [per-file-ignores]
    "legacy/*.cu" = ["GM101"]
    [launch.transpose]              # a kernel's launch, by name or name expression ("sgemm<64, 8>")
    block = [32, 8]                 # where no launch site in its file tells (analyzer/annotations.py)
    grid = [64, 64]
    smem = 0                        # dynamic shared memory, bytes
    args = { n = 4096 }             # scalar parameters' values

Command-line flags override the file; a `// cudaperf: launch` annotation in the source overrides
its [launch] table.
"""
from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path

KEYS = {"select", "ignore", "arch", "block-size", "ptxas", "exclude", "min-occupancy", "per-file-ignores", "jobs",
        "launch", "baseline", "fail-on"}
# the least severe finding that fails a run (exit 1), most severe first: rules.SEVERITIES, which this
# light module (read by the CLI before any analysis is imported) does not import
FAIL_ON = ("error", "warning", "info")
LAUNCH_KEYS = {"block", "grid", "smem", "args"}


class ConfigError(ValueError):
    pass


@dataclass
class Config:
    path: Path | None = None
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    arch: str | None = None
    block_size: int | None = None
    ptxas: bool = False
    exclude: list[str] = field(default_factory=list)
    min_occupancy: float | None = None
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    jobs: int | None = None                # files linted at a time (0: one per core)
    # kernel name (or name expression) -> {"block": (x, y, z), "grid": ..., "smem": int, "args": {name: number}}
    launches: dict[str, dict] = field(default_factory=dict)
    baseline: str | None = None            # a baseline file, relative to the config file
    fail_on: str | None = None             # "error", "warning" or "info" (default): exit 1 from this severity up

    @property
    def root(self) -> Path:
        return self.path.parent if self.path else Path.cwd()

    def _relative(self, file: Path) -> str:
        try:
            return str(Path(os.path.abspath(file)).relative_to(os.path.abspath(self.root)))
        except ValueError:
            return str(file)

    def excluded(self, file: Path) -> bool:
        rel = self._relative(file)
        return any(fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(file.name, pat) for pat in self.exclude)

    def ignores_for(self, file: Path) -> list[str]:
        rel = self._relative(file)
        out: list[str] = []
        for pat, codes in self.per_file_ignores.items():
            if fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(file.name, pat):
                out.extend(codes)
        return out


def find(start: Path) -> Path | None:
    start = Path(os.path.abspath(start))
    folder = start if start.is_dir() else start.parent
    for d in [folder, *folder.parents]:
        cand = d / ".cudaperf.toml"
        if cand.is_file():
            return cand
        py = d / "pyproject.toml"
        if py.is_file():
            try:
                text = py.read_text()
                # parsed (and tomllib imported: part of a pre-commit hook's start-up) only where
                # the word occurs, which a [tool.cudaperf] table needs
                if "cudaperf" in text and _has_table(text):
                    return py
            except (OSError, UnicodeDecodeError):
                pass
        if (d / ".git").exists():
            break
    return None


def _has_table(pyproject: str) -> bool:
    import tomllib

    try:
        return "cudaperf" in tomllib.loads(pyproject).get("tool", {})
    except tomllib.TOMLDecodeError:
        return False


def load(path: Path) -> Config:
    import tomllib

    try:
        data = tomllib.loads(path.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("cudaperf", {})
    unknown = set(data) - KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(KEYS))}")
    cfg = Config(path=path)
    try:
        cfg.select = _strings(data.get("select", []), "select")
        cfg.ignore = _strings(data.get("ignore", []), "ignore")
        cfg.exclude = _strings(data.get("exclude", []), "exclude")
        cfg.arch = data.get("arch")
        if "block-size" in data:
            cfg.block_size = int(data["block-size"])
        cfg.ptxas = bool(data.get("ptxas", False))
        if "min-occupancy" in data:
            cfg.min_occupancy = float(data["min-occupancy"])
        if "jobs" in data:
            cfg.jobs = int(data["jobs"])
            if cfg.jobs < 0:
                raise ValueError("jobs must be 0 (one per core) or more")
        pfi = data.get("per-file-ignores", {})
        if not isinstance(pfi, dict):
            raise ConfigError("per-file-ignores must be a table")
        cfg.per_file_ignores = {k: _strings(v, f"per-file-ignores.{k}") for k, v in pfi.items()}
        if "fail-on" in data:
            if data["fail-on"] not in FAIL_ON:
                raise ConfigError(f"fail-on must be one of {', '.join(FAIL_ON)}, got {data['fail-on']!r}")
            cfg.fail_on = data["fail-on"]
        if "baseline" in data:
            if not isinstance(data["baseline"], str) or not data["baseline"]:
                raise ConfigError("baseline must be a file name")
            cfg.baseline = data["baseline"]
        launch = data.get("launch", {})
        if not isinstance(launch, dict):
            raise ConfigError("launch must be a table of kernels ([launch.NAME])")
        cfg.launches = {name: _launch(v, f"launch.{name}") for name, v in launch.items()}
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    return cfg


def _strings(v, key: str) -> list[str]:
    if isinstance(v, str):
        return [v]
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ConfigError(f"{key} must be a list of strings")
    return list(v)


def _launch(v, key: str) -> dict:
    """One [launch.NAME] table, checked: block/grid lists of 1-3 positive ints within CUDA's
    limits, smem a byte count, args a table of numbers."""
    if not isinstance(v, dict):
        raise ConfigError(f"{key} must be a table (block, grid, smem, args)")
    unknown = set(v) - LAUNCH_KEYS
    if unknown:
        raise ConfigError(f"{key}: unknown key(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(LAUNCH_KEYS))}")
    out: dict = {}
    for dim in ("block", "grid"):
        if dim in v:
            d = v[dim]
            d = [d] if isinstance(d, int) and not isinstance(d, bool) else d
            if not isinstance(d, list) or not 1 <= len(d) <= 3 or \
                    not all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in d):
                raise ConfigError(f"{key}.{dim} must be 1 to 3 positive integers, e.g. [32, 8]")
            d = tuple(d) + (1,) * (3 - len(d))
            from .models import launch_dims_problem      # (numpy: loaded only for a launch table)

            problem = launch_dims_problem(dim, d)
            if problem:
                raise ConfigError(f"{key}.{dim} is beyond CUDA's limits: {problem}")
            out[dim] = d
    if "smem" in v:
        if not isinstance(v["smem"], int) or isinstance(v["smem"], bool) or v["smem"] < 0:
            raise ConfigError(f"{key}.smem must be a byte count")
        out["smem"] = v["smem"]
    args = v.get("args", {})
    if not isinstance(args, dict) or not all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                             for x in args.values()):
        raise ConfigError(f"{key}.args must be a table of numbers, e.g. {{ n = 4096 }}")
    out["args"] = dict(args)
    return out
