"""Automatic fixes (`lint --fix`, `lint --diff`): the edits some findings carry, applied to a file.

A fix is a set of `Edit`s, each a replacement of the exact text a finding names at its position
(line and 1-based byte column, as tree-sitter counts them). An edit applies only where the file
still reads that text there, as whole tokens: code that came from a macro's expansion, a position
moved by the pre-pass, or a file changed since the lint, is left alone (the finding stays).
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

# a character that would continue a number or a name: an edit's old text must end a token
_TOKEN_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")


@dataclass(frozen=True)
class Edit:
    line: int       # 1-based
    col: int        # 1-based, in bytes
    old: str
    new: str


def _offset(line_starts: list[int], e: Edit) -> int | None:
    if not 1 <= e.line <= len(line_starts) or e.col < 1:
        return None
    return line_starts[e.line - 1] + e.col - 1


def apply(data: bytes, edits: Iterable[Edit]) -> tuple[bytes, list[Edit]]:
    """`data` with the edits applied where it reads each edit's old text as a whole token at its
    position; and the edits applied. Of two edits that overlap, the first by position wins; an edit
    given twice (a device function's finding, once per kernel that calls it) applies once."""
    line_starts = [0] + [i + 1 for i, b in enumerate(data) if b == 0x0A]
    placed: dict[int, tuple[int, Edit]] = {}
    for e in edits:
        start = _offset(line_starts, e)
        old = e.old.encode()
        if start is None or not old or data[start:start + len(old)] != old:
            continue
        end = start + len(old)
        # the edit's text must end a token and start one where it ends and starts with a token's
        # characters (`(` ends one itself); bytes index to ints, as _TOKEN_CHARS holds
        if end < len(data) and data[end] in _TOKEN_CHARS and old[-1] in _TOKEN_CHARS:
            continue
        if start > 0 and data[start - 1] in _TOKEN_CHARS and old[0] in _TOKEN_CHARS:
            continue
        placed.setdefault(start, (end, e))
    out, applied, pos = [], [], 0
    for start in sorted(placed):
        end, e = placed[start]
        if start < pos:     # overlaps the edit before it
            continue
        out += [data[pos:start], e.new.encode()]
        applied.append(e)
        pos = end
    out.append(data[pos:])
    return b"".join(out), applied


def unified_diff(path: str, before: bytes, after: bytes) -> str:
    import difflib      # here, not at the top: the rules import this module on every lint's start

    a = before.decode("utf-8", errors="replace").splitlines(keepends=True)
    b = after.decode("utf-8", errors="replace").splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, fromfile=path, tofile=path))


def write_atomically(path: Path, data: bytes) -> None:
    """Replace the file's content in one step (a temporary file beside it, renamed over it),
    keeping its permissions: an interrupted fix leaves the old file, never half of the new."""
    mode = path.stat().st_mode
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".cudaperf-fix", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
