"""The linter on real CUDA code: public projects' files, which the project does not ship.

    python bench/real_code.py DIR... [--out bench/results/real_code.json] [--slow-ms 1000] [--python]

Point it at checkouts (or copies) of CUDA projects. Each *.cu / *.cuh file below the folders (with
--python, each *.py file too: the CUDA strings of load_inline, CuPy and PyCUDA solutions) is
linted in this process the way `python -m analyzer lint FILE` lints it (defaults, no config, no
ptxas), one file at a time, and timed. Reported: files, lines, kernels found and analyzed, files
with regions tree-sitter could not parse, internal errors (a bug of ours: lint must never raise),
files slower than --slow-ms, findings per rule, and the time per file (p50, p95, max) and per
1,000 lines. Only these aggregates and the files' names are written; no code is.
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def cuda_files(dirs: list[str], python: bool = False) -> list[tuple[Path, str]]:
    """(file, its name below the folder given) for each *.cu / *.cuh file (and *.py with `python`)."""
    suffixes = (".cu", ".cuh", ".py") if python else (".cu", ".cuh")
    out: list[tuple[Path, str]] = []
    for d in dirs:
        p = Path(d)
        if p.is_file():
            out.append((p, p.name))
            continue
        if not p.is_dir():
            raise SystemExit(f"error: {d}: no such file or folder")
        out += [(f, str(f.relative_to(p))) for f in sorted(p.rglob("*")) if f.suffix in suffixes and f.is_file()]
    return out


def lint_one(path: Path, name: str, job_of) -> dict:
    """One file through the CLI's own per-file function (reading, size limit, error capture)."""
    from analyzer.cli import lint_file

    try:
        text = path.read_bytes()
    except OSError:     # lint_file reports it as the file's input error
        text = b""
    t0 = time.perf_counter()
    outcome = lint_file(job_of(path))
    seconds = time.perf_counter() - t0
    res = outcome.result
    row = {"path": name, "bytes": len(text), "lines": text.count(b"\n") + 1, "seconds": seconds,
           "error": outcome.error.message if outcome.error else None,
           "kernels": len(res.kernels) if res else 0,
           "unresolved_accesses": sum(k.unknown_accesses for k in res.kernels) if res else 0,
           "accesses": sum(k.accesses for k in res.kernels) if res else 0,
           "findings": collections.Counter(f.code for f in res.findings) if res else collections.Counter(),
           "notes": list(outcome.notes)}
    row["parse_gaps"] = row["findings"].get("PA001", 0)      # regions tree-sitter could not read
    row["skipped_kernels"] = sum(1 for n in row["notes"] if "skipped" in n)
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "real_code.json"))
    ap.add_argument("--slow-ms", type=float, default=1000.0)
    ap.add_argument("--python", action="store_true", help="also *.py files (CUDA in load_inline/CuPy/PyCUDA strings)")
    ns = ap.parse_args(argv)

    from analyzer.cli import FileJob, DEFAULT_MAX_BYTES
    from analyzer.config import Config
    from analyzer.lint import LintSettings
    from analyzer.rules import all_rules

    codes = tuple(all_rules())
    settings = LintSettings()

    def job_of(path):
        return FileJob(path, codes, Config(), settings, None, DEFAULT_MAX_BYTES)

    files = cuda_files(ns.dirs, ns.python)
    if not files:
        raise SystemExit("error: no .cu or .cuh files below the given folders" + (" (nor .py)" if ns.python else ""))
    lint_one(*files[0], job_of)     # imports and the parser's start-up are not a file's time
    rows = []
    for i, (f, name) in enumerate(files, 1):
        rows.append(lint_one(f, name, job_of))
        if i % 25 == 0:
            print(f"  {i}/{len(files)} files", file=sys.stderr)

    ms = [r["seconds"] * 1e3 for r in rows]
    lines = sum(r["lines"] for r in rows)
    findings = collections.Counter()
    for r in rows:
        findings.update(r["findings"])
    internal = [r for r in rows if r["error"] and "internal error" in r["error"]]
    other_errors = [r for r in rows if r["error"] and "internal error" not in r["error"]]
    slow = sorted((r for r in rows if r["seconds"] * 1e3 > ns.slow_ms), key=lambda r: -r["seconds"])
    acc = sum(r["accesses"] for r in rows)
    out = {
        "folders": dict(collections.Counter(r["path"].split("/")[0] for r in rows if "/" in r["path"])),
        "files": len(rows), "lines": lines, "megabytes": sum(r["bytes"] for r in rows) / 1e6,
        "kernels": sum(r["kernels"] for r in rows),
        "files_with_kernels": sum(1 for r in rows if r["kernels"]),
        "memory_accesses": acc,
        "unresolved_access_share": (sum(r["unresolved_accesses"] for r in rows) / acc) if acc else None,
        "files_with_parse_gaps": sum(1 for r in rows if r["parse_gaps"]),
        "files_with_skipped_kernels": sum(1 for r in rows if r["skipped_kernels"]),
        "internal_errors": [{"path": r["path"], "error": r["error"]} for r in internal],
        "input_errors": [{"path": r["path"], "error": r["error"]} for r in other_errors],
        "slow_files": [{"path": r["path"], "ms": r["seconds"] * 1e3, "lines": r["lines"]} for r in slow],
        "ms_per_file": {"p50": float(np.percentile(ms, 50)), "p95": float(np.percentile(ms, 95)), "max": max(ms),
                        "total_s": sum(ms) / 1e3},
        "ms_per_1000_lines": sum(ms) / lines * 1e3 if lines else None,
        "findings_per_rule": dict(findings.most_common()),
        "files_with_findings": sum(1 for r in rows if r["findings"]),
        # .py files: read through a fallback (markdown fences, Python that does not parse), or with no CUDA
        "python_files_read_as_markdown": sum(1 for r in rows if any("markdown code blocks" in n for n in r["notes"])),
        "python_files_not_parsing": sum(1 for r in rows if any("Python does not parse" in n for n in r["notes"])),
        "python_files_without_cuda": sum(1 for r in rows if any("no CUDA found" in n for n in r["notes"])),
        "per_file": [{"path": r["path"], "lines": r["lines"], "ms": round(r["seconds"] * 1e3, 2),
                      "kernels": r["kernels"], "findings": dict(r["findings"]), "error": r["error"],
                      "parse_gaps": r["parse_gaps"]} for r in rows],
    }
    from lint_speed import machine     # bench/ is this script's folder
    out["machine"] = machine()
    Path(ns.out).parent.mkdir(parents=True, exist_ok=True)
    Path(ns.out).write_text(json.dumps(out, indent=2) + "\n")

    print(f"{'files':<34}{out['files']:>10}")
    print(f"{'lines':<34}{lines:>10}")
    print(f"{'files with kernels':<34}{out['files_with_kernels']:>10}")
    print(f"{'kernels analyzed':<34}{out['kernels']:>10}")
    share = out["unresolved_access_share"]
    print(f"{'unresolved memory accesses':<34}{(f'{100 * share:.1f}%' if share is not None else '-'):>10}")
    print(f"{'files with unparsed regions':<34}{out['files_with_parse_gaps']:>10}")
    print(f"{'internal errors (bugs)':<34}{len(internal):>10}")
    print(f"{'input errors':<34}{len(other_errors):>10}")
    print(f"{'files over ' + str(int(ns.slow_ms)) + ' ms':<34}{len(slow):>10}")
    print(f"{'ms per file p50 / p95 / max':<34}{out['ms_per_file']['p50']:>10.1f} {out['ms_per_file']['p95']:.1f} "
          f"{out['ms_per_file']['max']:.1f}")
    print(f"{'files with findings':<34}{out['files_with_findings']:>10}")
    print("findings per rule: " + ", ".join(f"{k} {v}" for k, v in findings.most_common()))
    for r in internal:
        print(f"INTERNAL {r['path']}: {r['error']}")
    return 1 if internal else 0


if __name__ == "__main__":
    sys.exit(main())
