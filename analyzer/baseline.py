"""A baseline of accepted findings, so that a repository with old ones can adopt the linter and
fail only on new ones:

    python -m analyzer lint --write-baseline .cudaperf-baseline.json kernels/   # once: accept what is there
    python -m analyzer lint --baseline .cudaperf-baseline.json kernels/         # from then on: new findings only

A finding is known by its file (relative to the baseline file's folder), rule, kernel and the text
of the line it is on, not by its line number: code added above it does not make it new, and
editing its line does (whoever touches it sees it). Each entry counts how many such findings were
accepted; more of them than that are new.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Iterable

VERSION = 1


class BaselineError(ValueError):
    pass


def _line_texts(path: str, cache: dict) -> list[str]:
    got = cache.get(path)
    if got is None:
        try:
            got = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            got = []
        cache[path] = got
    return got


def _key(finding, root: Path, cache: dict) -> tuple[str, str, str, str]:
    lines = _line_texts(finding.path, cache)
    text = lines[finding.line - 1].strip() if 0 < finding.line <= len(lines) else ""
    rel = os.path.relpath(os.path.abspath(finding.path), root).replace(os.sep, "/")
    return (rel, finding.code, finding.kernel, " ".join(text.split()))


def write(path: Path, results: Iterable) -> int:
    """Every finding of `results` into the baseline file; how many."""
    root, cache = Path(os.path.abspath(path)).parent, {}
    counts = Counter(_key(f, root, cache) for r in results for f in r.findings)
    entries = [{"path": p, "code": c, "kernel": k, "line": t, "count": n} for (p, c, k, t), n in sorted(counts.items())]
    path.write_text(json.dumps({"version": VERSION, "findings": entries}, indent=1) + "\n")
    return sum(counts.values())


def load(path: Path) -> Counter:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise BaselineError(f"baseline file not found: {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(f"{path}: not a baseline file ({exc})") from None
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("findings"), list):
        raise BaselineError(f"{path}: not a baseline file of version {VERSION} (write one with --write-baseline)")
    out: Counter = Counter()
    try:
        for e in data["findings"]:
            out[(e["path"], e["code"], e["kernel"], e["line"])] += int(e.get("count", 1))
    except (TypeError, KeyError, ValueError) as exc:
        raise BaselineError(f"{path}: a malformed entry ({exc})") from None
    return out


def apply(path: Path, accepted: Counter, results: Iterable) -> int:
    """Drop from each result the findings the baseline accepts (each entry as many times as it
    counts); how many were dropped."""
    root, cache, left = Path(os.path.abspath(path)).parent, {}, Counter(accepted)
    dropped = 0
    for r in results:
        kept = []
        for f in r.findings:
            k = _key(f, root, cache)
            if left[k] > 0:
                left[k] -= 1
                dropped += 1
            else:
                kept.append(f)
        r.findings = kept
    return dropped
