"""Findings as text (`path:line:col: CODE message`), JSON, SARIF 2.1.0, or GitHub Actions
workflow commands (annotations on a pull request's diff, with no code-scanning upload)."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict
from typing import Iterable, Mapping

from .lint import FileResult, KernelSummary
from .rules import Finding, Rule

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
TOOL_URI = "https://github.com/cudaperf/cudaperf"


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("cudaperf")
    except Exception:  # not installed: running from a checkout
        return "0.0.0"


def text_line(f: Finding) -> str:
    return f"{f.path}:{f.line}:{f.col}: {f.code} {f.message}"


def kernel_line(path: str, k: KernelSummary) -> str:
    def num(x, unit=""):
        return "n/a" if x is None else f"{x:.1f}{unit}"

    b = "x".join(map(str, k.block))
    parts = [f"block {b} ({k.launch_source})", f"{k.registers} regs ({k.registers_source})",
             f"occupancy {k.occupancy:.0%} ({k.occupancy_limiter})"]
    if k.global_load_sectors_per_request is not None:
        parts.append(f"global loads {num(k.global_load_sectors_per_request)} sectors/req (ideal {num(k.global_load_ideal)})")
    if k.global_store_sectors_per_request is not None:
        parts.append(f"stores {num(k.global_store_sectors_per_request)} (ideal {num(k.global_store_ideal)})")
    if k.shared_load_wavefronts_per_request is not None or k.shared_store_wavefronts_per_request is not None:
        parts.append(f"shared {num(k.shared_load_wavefronts_per_request)}/{num(k.shared_store_wavefronts_per_request)} "
                     f"wavefronts/req ld/st")
    if k.unknown_accesses:
        parts.append(f"{k.unknown_accesses} of {k.accesses} accesses not estimable (data-dependent or unknown index)")
    if k.assumed:
        parts.append(f"assumed {', '.join(f'{a}=4096' for a in k.assumed)}")
    return f"{path}:{k.line}:1: kernel {k.name}: " + "; ".join(parts)


def shown(findings: Iterable[Finding]) -> list[Finding]:
    """The findings a reader sees: one line for the same finding at one place from several kernels
    (a device function's access, once per kernel that calls it; the JSON and SARIF keep each
    kernel's). The findings come sorted (Finding.sort_key), so such lines are neighbours."""
    out: list[Finding] = []
    for f in findings:
        if out and (f.line, f.col, f.code, f.message) == (out[-1].line, out[-1].col, out[-1].code, out[-1].message):
            continue
        out.append(f)
    return out


def render_text(results: Iterable[FileResult], show_estimates: bool = False, statistics: bool = False,
                baselined: int = 0, errors: int = 0) -> str:
    """The findings a line each and a summary; `errors`: the paths that could not be linted (their
    lines go to stderr), which the summary counts: no path linted is no "All checks passed"."""
    lines = []
    total: Counter = Counter()
    files = 0
    for r in results:
        files += 1
        if show_estimates:
            lines.extend(kernel_line(r.path, k) for k in r.kernels)
        for f in shown(r.findings):
            lines.append(text_line(f))
            total[f.code] += 1
    n = sum(total.values())
    if statistics and n:
        for code, count in total.most_common():
            lines.append(f"{count:5d}  {code}")
    accepted = f"; {baselined} more accepted by the baseline" if baselined else ""
    failed = f"; {errors} path{'s' * (errors != 1)} not linted (errors above)" if errors else ""
    if n:
        lines.append(f"Found {n} finding{'s' * (n != 1)} in {files} file{'s' * (files != 1)}{accepted}{failed}.")
    elif errors:
        lines.append(f"No findings in {files} file{'s' * (files != 1)}{accepted}{failed}.")
    else:
        lines.append(f"All checks passed ({files} file{'s' * (files != 1)}{accepted}).")
    return "\n".join(lines) + "\n"


_GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(results: Iterable[FileResult], errors: list[dict]) -> str:
    """One `::warning file=..,line=..,col=..,title=..::message` line per finding (`::error` for
    an error, `::notice` for info) and per file that could not be linted."""
    lines = []
    for r in results:
        for f in shown(r.findings):
            lines.append(f"::{_GITHUB_LEVEL.get(f.severity, 'warning')} file={_gh_property(f.path)},line={f.line},"
                         f"col={f.col},title={_gh_property(f'cudaperf {f.code} ({f.name})')}::{_gh_data(f.message)}")
    for e in errors:
        lines.append(f"::error file={_gh_property(e['path'])},title=cudaperf::{_gh_data(e['message'])}")
    return "\n".join(lines) + ("\n" if lines else "")


def render_json(results: Iterable[FileResult], errors: list[dict], baselined: int = 0) -> str:
    files = []
    for r in results:
        files.append({
            "path": r.path,
            "findings": [asdict(f) for f in r.findings],
            "kernels": [asdict(k) for k in r.kernels],
            "notes": r.notes,
            "suppressed": r.suppressed,
        })
    return json.dumps({"version": _version(), "files": files, "errors": errors, "baselined": baselined}, indent=2,
                      default=_jsonable) + "\n"


def _jsonable(o):
    if hasattr(o, "item"):
        return o.item()
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    return str(o)


def render_sarif(results: Iterable[FileResult], rules: Mapping[str, Rule], errors: list[dict]) -> str:
    rule_list = list(rules.values())
    index = {r.code: i for i, r in enumerate(rule_list)}
    sarif_rules = [{
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": r.doc.strip()},
        "help": {"text": r.doc.strip(), "markdown": r.doc.strip()},
        "defaultConfiguration": {"level": _SARIF_LEVEL[r.severity]},
        "properties": {"tags": ["cuda", "performance" if r.code[:2] in ("GM", "SM", "OC", "DV", "FP") else "correctness"]},
    } for r in rule_list]
    sarif_results = []
    for res in results:
        for f in res.findings:
            item = {
                "ruleId": f.code,
                "level": _SARIF_LEVEL[f.severity],
                "message": {"text": f.message},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": _uri(f.path)},
                    "region": {"startLine": max(1, f.line), "startColumn": max(1, f.col)},
                }}],
                "properties": {"kernel": f.kernel, "estimate": json.loads(json.dumps(f.estimate, default=_jsonable))},
            }
            if f.code in index:
                item["ruleIndex"] = index[f.code]
            if f.fix:     # SARIF 2.1.0 §3.55: what `lint --fix` would change
                item["fixes"] = [{
                    "description": {"text": "; ".join(f"`{e.old}` -> `{e.new}`" for e in f.fix)},
                    "artifactChanges": [{"artifactLocation": {"uri": _uri(f.path)}, "replacements": [{
                        "deletedRegion": {"startLine": e.line, "startColumn": e.col, "endLine": e.line,
                                          "endColumn": e.col + len(e.old)},
                        "insertedContent": {"text": e.new}} for e in f.fix]}],
                }]
            sarif_results.append(item)
    notifications = [{"level": "error", "message": {"text": e["message"]},
                      "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(e["path"])}}}]}
                     for e in errors]
    run = {
        "tool": {"driver": {"name": "cudaperf", "informationUri": TOOL_URI, "version": _version(),
                            "rules": sarif_rules}},
        "results": sarif_results,
        "invocations": [{"executionSuccessful": not errors, "toolExecutionNotifications": notifications}],
    }
    doc = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(doc, indent=2) + "\n"


def _uri(path: str) -> str:
    # SARIF wants URIs; relative paths stay relative so GitHub maps them onto the checkout
    return path.replace("\\", "/").lstrip("./") if path.startswith("./") else path.replace("\\", "/")
