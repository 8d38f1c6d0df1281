"""The local headers a file includes (`#include "common.cuh"`), for the constants, type aliases and
structs they define: a kernel sized by a header's `#define BLOCK 256` is analyzed at 256, not at
the 4096 an unknown size takes.

Only quoted includes that exist beside the including file (or a folder above it, up to 4) are
read, 4 levels deep at most, each once, none over 1 MB; `<system>` headers never. A header's
functions are not analyzed with the file: only its definitions count. Parsed headers are kept for
the process by path, modification time and the definitions they were parsed after.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from .parse import Program, parse

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.M)
MAX_DEPTH = 4
MAX_BYTES = 1 << 20
_CACHE: dict = {}
_CACHE_MAX = 256


def _find(name: str, folder: Path) -> Path | None:
    """`name` as the including file's folder (or one of the folders above it) holds it."""
    for d in [folder, *list(folder.parents)[:4]]:
        cand = d / name
        try:
            if cand.is_file():
                return cand
        except OSError:
            return None
    return None


def headers(source: bytes, path: str) -> list[Path]:
    """The local headers `source` (the file at `path`) includes, its headers' headers first."""
    if b"include" not in source or not os.path.isfile(path):
        return []
    out: list[Path] = []
    seen = {os.path.abspath(path)}

    def visit(text: bytes, folder: Path, depth: int) -> None:
        for m in _INCLUDE.finditer(text):
            found = _find(m.group(1).decode("utf-8", "replace"), folder)
            if found is None:
                continue
            key = os.path.abspath(found)
            if key in seen:
                continue
            seen.add(key)
            try:
                if found.stat().st_size > MAX_BYTES:
                    continue
                inner = found.read_bytes()
            except OSError:
                continue
            if depth < MAX_DEPTH:
                visit(inner, found.parent, depth + 1)
            out.append(found)

    visit(source, Path(os.path.abspath(path)).parent, 1)
    return out


def known(source: bytes, path: str) -> Program | None:
    """The definitions of the local headers `source` includes, as one program (parse's `known`);
    None where it includes none."""
    found = headers(source, path)
    prog: Program | None = None
    for h in found:
        try:
            st = h.stat()
        except OSError:
            continue
        before = tuple(sorted(prog.constants.items())) if prog is not None else ()
        key = (os.path.abspath(h), st.st_mtime_ns, st.st_size, before)
        got = _CACHE.get(key)
        if got is None:
            try:
                got = parse(h.read_bytes(), str(h), prog)
            except (OSError, RecursionError):
                continue
            if len(_CACHE) >= _CACHE_MAX:
                _CACHE.clear()
            _CACHE[key] = got
        prog = got
    return prog
