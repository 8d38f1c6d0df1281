"""Where a lint and a reward call spend their time, by the clock: the phases' shares.

The instruction counts (bench/instruction_count.py) are the stable measure of a change; this
says where the wall-clock time goes, which is not the same split (over the reward calls around
the p50, tree-sitter is ~20% of the instructions and ~12% of the time on the dev VM). Each phase
is timed by wrapping the module global that the code calls it through (`analyzer.lint.parse`,
`.analyze`, `.prepare_estimates`, ..., each rule's `check`, tree-sitter's parse through
`analyzer.parse._parse_tree`, and for the reward `rewardmodel.features.lint_source` and the
model's prediction); the wrappers add ~1 us a call.

- lint: the 200 files of bench/lint_speed.py, in-process, `--passes` passes after a warm-up pass;
- reward: the 1,000 candidates of bench/surrogate_speed.py, single calls without ptxas.

    python bench/phase_times.py [--passes 3] [--reward-n 1000] [--out bench/results/phase_times.json]
"""
from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


class _Timed:
    """Wraps a callable: adds its wall time to `acc[name]`. Calls made inside another timed
    phase count in both; shares below are of the whole loop."""

    def __init__(self, fn, name: str, acc: collections.Counter):
        self.fn, self.name, self.acc = fn, name, acc

    def __call__(self, *a, **k):
        t0 = time.perf_counter()
        try:
            return self.fn(*a, **k)
        finally:
            self.acc[self.name] += time.perf_counter() - t0


class _TimedRule:
    def __init__(self, rule, acc, name):
        self.rule, self.acc, self.name = rule, acc, name
        self.code, self.scope = rule.code, rule.scope
        self.own = name[:len(name) - len(name.lstrip())] + "  rule " + rule.code

    def check(self, ctx):
        t0 = time.perf_counter()
        try:
            return list(self.rule.check(ctx))
        finally:
            dt = time.perf_counter() - t0
            self.acc[self.name] += dt
            self.acc[self.own] += dt


# The lint's phases in the order printed; a name's leading spaces nest it in the one above.
LINT_PHASES = [
    ("parse", "parse (pre-pass, tree-sitter, parse model)"),
    ("preprocess", "  macro pre-pass"),
    ("_parse_tree", "  tree-sitter parse"),
    ("resolve_launch", "launch resolution"),
    ("analyze", "access walk (access.analyze)"),
    ("_resources", "resources (static register estimate)"),
    ("prepare_estimates", "estimates (prepare_estimates)"),
    ("rules", "rules"),
    ("scan", "suppression scan"),
    ("summarize", "kernel summaries"),
]


def _instrument(acc: collections.Counter, indent: str = ""):
    """Wraps the lint's phases (names prefixed by `indent`); returns the timed rule registry,
    the names in order, and an undo function."""
    from analyzer import lint as L
    from analyzer import parse as P
    from analyzer.rules import all_rules

    names = {key: indent + label for key, label in LINT_PHASES}
    saved = []

    def wrap(module, attr):
        fn = getattr(module, attr)
        saved.append((module, attr, fn))
        setattr(module, attr, _Timed(fn, names[attr], acc))

    for attr in ("parse", "resolve_launch", "analyze", "_resources", "prepare_estimates", "scan", "summarize"):
        wrap(L, attr)
    wrap(P, "preprocess")
    wrap(P, "_parse_tree")
    rules = {k: _TimedRule(r, acc, names["rules"]) for k, r in all_rules().items()}
    order = [names[key] for key, _ in LINT_PHASES]
    at = order.index(names["rules"]) + 1
    order[at:at] = [indent + "  rule " + code for code in sorted(rules)]

    def undo():
        for module, attr, fn in reversed(saved):
            setattr(module, attr, fn)
    return rules, order, undo


def _table(title: str, acc: collections.Counter, order: list[str], total_s: float, n: int, unit: str) -> list[dict]:
    """Prints the phases in `order` (an indented name is part of the one above it); the shares
    are of the whole loop's time."""
    rows = [{"phase": name.strip(), "depth": (len(name) - len(name.lstrip())) // 2,
             "ms_per_" + unit: acc[name] / n * 1e3, "share": acc[name] / total_s} for name in order if name in acc]
    print(f"\n{title}: {total_s / n * 1e3:.3f} ms per {unit}")
    print(f"{'phase':46s} {'ms/' + unit:>10s} {'share':>7s}")
    for r in rows:
        print(f"{'  ' * r['depth'] + r['phase']:46s} {r['ms_per_' + unit]:10.3f} {r['share']:7.1%}")
    rest = 1.0 - sum(r["share"] for r in rows if r["depth"] == 0)
    print(f"{'(everything else)':46s} {rest * total_s / n * 1e3:10.3f} {rest:7.1%}")
    return rows + [{"phase": "(everything else)", "depth": 0, "ms_per_" + unit: rest * total_s / n * 1e3,
                    "share": rest}]


def lint_phases(passes: int, min_files: int = 200, files_set: str = "kernels") -> dict:
    from analyzer.lint import lint_source
    from lint_speed import pack, sources, with_host_code

    files = pack(sources(), 150, min_files) if files_set == "kernels" else with_host_code(min_files)
    acc: collections.Counter = collections.Counter()
    rules, order, undo = _instrument(acc)
    try:
        for i, text in enumerate(files):      # warm-up pass
            lint_source(text, f"f{i}.cu", rules=rules)
        acc.clear()
        t0 = time.perf_counter()
        for _ in range(passes):
            for i, text in enumerate(files):
                lint_source(text, f"f{i}.cu", rules=rules)
        total = time.perf_counter() - t0
    finally:
        undo()
    n = passes * len(files)
    rows = _table(f"lint, {len(files)} files ({files_set}) x {passes} passes", acc, order, total, n, "file")
    return {"files": len(files), "set": files_set, "passes": passes, "ms_per_file": total / n * 1e3, "phases": rows}


def reward_phases(n_cands: int) -> dict:
    from rewardmodel import features as F
    from rewardmodel.surrogate import load_default
    from surrogate_speed import candidates, one_call

    model = load_default()
    cands = candidates(n_cands)
    acc: collections.Counter = collections.Counter()
    rules, order, undo = _instrument(acc, indent="    ")
    extract, lint, predict = "features (extract, with its lint)", "  lint (features.lint_source)", "prediction (surrogate)"
    order = [extract, lint] + order + [predict]
    saved_lint, saved_extract = F.lint_source, F.extract
    F.lint_source = _Timed(lambda *a, **k: saved_lint(*a, rules=rules, **k), lint, acc)
    F.extract = _Timed(saved_extract, extract, acc)
    model.predict_with_uncertainty = _Timed(model.predict_with_uncertainty, predict, acc)
    try:
        one_call(cands[0], model, False)
        acc.clear()
        total = 0.0
        for s in cands:
            total += one_call(s, model, False)[0]
    finally:
        F.lint_source, F.extract = saved_lint, saved_extract
        del model.predict_with_uncertainty
        undo()
    rows = _table(f"reward, {len(cands)} single calls (no ptxas)", acc, order, total, len(cands), "call")
    return {"calls": len(cands), "ms_per_call": total / len(cands) * 1e3, "phases": rows}


def main(argv=None) -> int:
    from lint_speed import machine

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", type=int, default=3, help="timed passes over the lint files")
    ap.add_argument("--reward-n", type=int, default=1000, help="reward calls (0: lint only)")
    ap.add_argument("--set", default="kernels", choices=("kernels", "with_host_code"),
                    help="bench/lint_speed.py's set of lint files")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "phase_times.json"))
    ns = ap.parse_args(argv)
    out = {"machine": machine(), "lint": lint_phases(ns.passes, files_set=ns.set)}
    if ns.reward_n:
        out["reward"] = reward_phases(ns.reward_n)
    m = out["machine"]
    print(f"\nmachine: {m['cpu']} ({m['cores']} cores), Python {m['python']}; "
          f"sum(range(10**6)) in {m['sum_range_1e6_ms']} ms")
    Path(ns.out).parent.mkdir(parents=True, exist_ok=True)
    Path(ns.out).write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {ns.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
