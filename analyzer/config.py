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
    [per-file-ignores]
    "legacy/*.cu" = ["GM101"]

Command-line flags override the file.
"""
from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from pathlib import Path

KEYS = {"select", "ignore", "arch", "block-size", "ptxas", "exclude", "min-occupancy", "per-file-ignores", "jobs"}


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
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: {exc}") from exc
    return cfg


def _strings(v, key: str) -> list[str]:
    if isinstance(v, str):
        return [v]
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ConfigError(f"{key} must be a list of strings")
    return list(v)
