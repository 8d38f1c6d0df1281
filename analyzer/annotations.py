"""Launch annotations: how a kernel is launched, said in a comment beside it.

    // cudaperf: launch block=16,16 grid=64,64 n=4096 m=1024
    __global__ void k(const float* a, float* b, int n, int m) { ... }

    // cudaperf: launch sgemm<64, 8> block=256 M=4096 N=4096 K=4096

A kernel in a header, or one launched from another file or from Python, has no launch the
analyzer can see; the annotation gives its block, grid, dynamic shared bytes and scalar
arguments, so that its estimates are of the launch it really gets and not of defaults.

An annotation without a name is for the next function defined after it, which must be a kernel;
one with a name (a kernel's name, or a name expression with its template arguments) is for that
kernel wherever it is in the file. Keys:

    block=32,8 (or 32x8)   threads per block, 1 to 3 sizes
    grid=1024,64           blocks, 1 to 3 sizes
    smem=4096              dynamic shared memory, bytes
    NAME=VALUE             the value of the scalar parameter NAME

Values are C constant expressions over the file's constants, without spaces (`n=1<<20`,
`block=TILE,TILE/4`). What the command line or a caller gives explicitly (`--block`, `--arg`)
overrides an annotation; an annotation overrides the config file's [launch.NAME] tables and the
file's own launch sites. A malformed annotation is reported (PA002) and its launch not used.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_MARK = re.compile(r"//\s*cudaperf:\s*launch\b(.*)$", re.M)
_KEY = re.compile(r"(?<![\w<,])([A-Za-z_]\w*)\s*=(?!=)")
_SIZES = re.compile(r"[,x]")


@dataclass(frozen=True)
class LaunchNote:
    """One `// cudaperf: launch ...` comment, its values resolved."""

    line: int
    col: int
    name: str | None                          # the kernel named, else None (the next kernel)
    template_args: tuple[str, ...] = ()       # from a name expression: `sgemm<64, 8>`
    block: tuple[int, int, int] | None = None
    grid: tuple[int, int, int] | None = None
    smem: int | None = None
    args: dict[str, int | float] = field(default_factory=dict)


@dataclass(frozen=True)
class NoteProblem:
    line: int
    col: int
    message: str


def scan(text: str, constants: dict[str, int | float]) -> tuple[list[LaunchNote], list[NoteProblem]]:
    """The file's launch annotations in line order, and the ones it could not read."""
    notes: list[LaunchNote] = []
    problems: list[NoteProblem] = []
    if "cudaperf:" not in text:
        return notes, problems
    for m in _MARK.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        col = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        try:
            notes.append(_read(m.group(1), line, col, constants))
        except ValueError as exc:
            problems.append(NoteProblem(line, col, f"launch annotation not used: {exc}"))
    return notes, problems


def _read(body: str, line: int, col: int, constants: dict[str, int | float]) -> LaunchNote:
    from .lint import split_name_expression     # (lint imports this module at call time only)

    body = body.split("//", 1)[0].strip()       # a comment after the annotation
    keys = list(_KEY.finditer(body))
    if not keys:
        raise ValueError("it gives no KEY=VALUE (block=..., grid=..., smem=..., or a parameter's NAME=VALUE)")
    head = body[: keys[0].start()].strip()
    name, targs = None, ()
    if head:
        base, args = split_name_expression(head)
        if not re.fullmatch(r"[A-Za-z_]\w*", base) or (("<" in head) and not args):
            raise ValueError(f"`{head}` is neither a kernel name nor KEY=VALUE")
        name, targs = base, tuple(args)
    out: dict[str, object] = {}
    args: dict[str, int | float] = {}
    for i, k in enumerate(keys):
        key = k.group(1)
        value = body[k.end(): keys[i + 1].start() if i + 1 < len(keys) else len(body)].strip()
        if not value:
            raise ValueError(f"{key}= has no value")
        if " " in value or "\t" in value:
            raise ValueError(f"{key}={value}: a value is written without spaces")
        if key in out or key in args:
            raise ValueError(f"{key} is given twice")
        if key in ("block", "grid"):
            out[key] = _dims(key, value, constants)
        elif key == "smem":
            v = _number(key, value, constants)
            if not isinstance(v, int) or v < 0:
                raise ValueError(f"smem={value} is not a byte count")
            out[key] = v
        else:
            args[key] = _number(key, value, constants)
    return LaunchNote(line, col, name, targs, out.get("block"), out.get("grid"), out.get("smem"), args)  # type: ignore[arg-type]


def _number(key: str, text: str, constants) -> int | float:
    from . import models
    from .parse import eval_constant

    v = eval_constant(text, constants)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not models.representable(v):
        raise ValueError(f"{key}={text} is not a constant this file defines")
    return int(v) if isinstance(v, float) and v.is_integer() and key in ("block", "grid") else v


def _dims(key: str, text: str, constants) -> tuple[int, int, int]:
    from . import models

    parts = _SIZES.split(text.strip("()"))
    if not 1 <= len(parts) <= 3 or not all(parts):
        raise ValueError(f"{key}={text} takes 1 to 3 sizes, e.g. {key}=32,8")
    vals = []
    for p in parts:
        v = _number(key, p, constants)
        if not isinstance(v, int) or v < 1:
            raise ValueError(f"{key}={text}: {p} is not a positive integer")
        vals.append(v)
    vals += [1] * (3 - len(vals))
    problem = models.launch_dims_problem(key, vals)
    if problem:
        raise ValueError(f"{key}={text} is beyond CUDA's limits: {problem}")
    return (vals[0], vals[1], vals[2])
