"""Inline suppressions, in the forms people already use.

    x = a[i * n];   // cudaperf: ignore[GM101]     this line, these codes
    x = a[i * n];   // NOLINT(GM101)               the same, clang-tidy style
    // NOLINTNEXTLINE(GM101, SM201)                the next line
    // cudaperf: ignore-file[PA001]                the whole file, these codes
    // cudaperf: ignore                            this line, every code
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

ALL = "*"
_LINE = re.compile(r"//\s*(?:cudaperf:\s*ignore(?!-)|NOLINT(?!NEXTLINE))(?:\s*[\[(]([^\])]*)[\])])?")
_NEXT = re.compile(r"//\s*(?:cudaperf:\s*ignore-next-line|NOLINTNEXTLINE)(?:\s*[\[(]([^\])]*)[\])])?")
_FILE = re.compile(r"//\s*cudaperf:\s*ignore-file(?:\s*[\[(]([^\])]*)[\])])?")


def _codes(group: str | None) -> set[str]:
    if not group:
        return {ALL}
    return {c.strip().upper() for c in group.split(",") if c.strip()}


@dataclass
class Suppressions:
    by_line: dict[int, set[str]] = field(default_factory=dict)
    file: set[str] = field(default_factory=set)

    def suppressed(self, code: str, line: int) -> bool:
        if ALL in self.file or any(code.startswith(c) for c in self.file):
            return True
        codes = self.by_line.get(line)
        return bool(codes) and (ALL in codes or any(code.startswith(c) for c in codes))


def scan(text: str) -> Suppressions:
    out = Suppressions()
    if "cudaperf:" not in text and "NOLINT" not in text:
        return out
    for number, line in enumerate(text.splitlines(), start=1):
        if "//" not in line:
            continue
        m = _FILE.search(line)
        if m:
            out.file |= _codes(m.group(1))
            continue
        m = _NEXT.search(line)
        if m:
            out.by_line.setdefault(number + 1, set()).update(_codes(m.group(1)))
            continue
        m = _LINE.search(line)
        if m:
            out.by_line.setdefault(number, set()).update(_codes(m.group(1)))
    return out
