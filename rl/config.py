"""The training run's configuration: one dataclass, read from TOML or YAML.

Unknown keys are errors (a typo must not silently train with a default), and every error is
one line naming the file and the key.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .scheduler import SchedulerConfig

__all__ = ["TrainConfig", "ConfigError", "load_config"]


class ConfigError(ValueError):
    pass


@dataclass(frozen=True)
class TrainConfig:
    name: str = "run"
    # tasks: explicit ids, or every task of these families (sizes: only these size labels)
    tasks: tuple[str, ...] = ()
    families: tuple[str, ...] = ()
    sizes: tuple[str, ...] = ()
    max_tasks: int = 12
    # the policy and GRPO
    steps: int = 30
    tasks_per_step: int = 4
    group_size: int = 8
    turns: int = 4
    gamma: float = 0.4
    lr: float = 3e-3
    hidden: int = 64
    entropy: float = 0.01
    seed: int = 0
    # where rewards come from
    oracle: str = "replay"                    # "replay" | "gpu" | "ray" | "none"
    oracle_options: dict[str, Any] = field(default_factory=dict)
    surrogate: str = "holdout"                # "default" | "holdout" (fit without the run's families) | a model path
    stay_in_measured: bool = True             # with replay: move only to variants that were measured
    scheduler: SchedulerConfig = field(default_factory=SchedulerConfig)
    # output
    out_dir: str = "runs/{name}"
    eval_every: int = 0                       # 0: evaluate at the start and the end only
    plot: bool = True

    @property
    def out_path(self) -> Path:
        return Path(self.out_dir.format(name=self.name))


def _build(cls, data: dict[str, Any], where: str):
    fields = {f.name: f for f in dataclasses.fields(cls)}
    kw: dict[str, Any] = {}
    for key, value in data.items():
        if key not in fields:
            raise ConfigError(f"{where}: unknown key {key!r} (known: {', '.join(sorted(fields))})")
        f = fields[key]
        if key == "scheduler":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: 'scheduler' must be a table of {', '.join(SchedulerConfig.__dataclass_fields__)}")
            value = _build(SchedulerConfig, value, f"{where} [scheduler]")
        elif isinstance(value, list):
            value = tuple(value)
        default = f.default if f.default is not dataclasses.MISSING else None
        if isinstance(default, bool) and not isinstance(value, bool):
            raise ConfigError(f"{where}: {key} must be true or false, got {value!r}")
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"{where}: {key} must be a number, got {value!r}")
            value = type(default)(value) if isinstance(default, float) or float(value).is_integer() else value
        if isinstance(default, str) and not isinstance(value, str):
            raise ConfigError(f"{where}: {key} must be a string, got {value!r}")
        kw[key] = value
    try:
        return cls(**kw)
    except TypeError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """A TrainConfig from a .toml, .yaml/.yml file, or a directory holding config.toml / config.yaml."""
    p = Path(path)
    if p.is_dir():
        found = [p / n for n in ("config.toml", "config.yaml", "config.yml") if (p / n).exists()]
        if not found:
            raise ConfigError(f"{p}: no config.toml or config.yaml in this directory")
        p = found[0]
    if not p.exists():
        raise ConfigError(f"{p}: no such config file")
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{p}: cannot read: {exc}") from None
    if p.suffix == ".toml":
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{p}: not valid TOML: {exc}") from None
    elif p.suffix in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise ConfigError(f"{p}: YAML configs need PyYAML (pip install pyyaml), or use TOML") from None
        try:
            data = yaml.safe_load(text) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{p}: not valid YAML: {str(exc).splitlines()[0]}") from None
    else:
        raise ConfigError(f"{p}: config files are .toml or .yaml")
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: the top level must be a table of settings")
    data = {**data, **(overrides or {})}
    return _build(TrainConfig, data, str(p))
