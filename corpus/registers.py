"""`python -m corpus fit-registers`: the static register estimate's weights, fitted on ptxas.

Every measured kernel (the corpus families, the hand-written kernels, the RL tasks' candidates)
has ptxas's register count in its rows. The analyzer's estimate without a compiler
(analyzer.resources.estimate_registers) is a weighted sum of what `register_features` counts in
a kernel's text; its weights are the non-negative least-squares fit of those counts, one row per
distinct kernel. The command prints, for the weights in use and for a new fit, how far the
estimate is from ptxas on every kernel and on families left out of the fit (each family's kernels
estimated by weights fitted on the other families): the relative error, the rank correlation, how
often the occupancy it implies is ptxas's, and how often the low-occupancy rule (OC601) would fire
wrongly or stay silent. `--write` stores the new fit in analyzer/register_weights.py.
"""
from __future__ import annotations

import argparse
import datetime as dt
import sys
from dataclasses import dataclass
from pathlib import Path
from pprint import pformat

from analyzer import models
from analyzer.lint import split_name_expression
from analyzer.parse import parse
from analyzer.resources import REGISTER_FEATURES as FEATURES, register_cap, register_features, weighted_registers
from analyzer.rules import Options

WEIGHTS_FILE = Path(__file__).resolve().parent.parent / "analyzer" / "register_weights.py"
ARCH = "sm_90"    # the H200 the counts come from


@dataclass
class KernelRow:
    family: str
    kernel: str
    registers: int          # ptxas's count (the NVRTC log at collection)
    features: dict[str, int]
    threads: int            # the first measured launch: for the occupancy the estimate implies
    smem: int
    cap: int = 255          # what the kernel's __launch_bounds__ leave (resources.register_cap)


def kernel_rows(data_dirs=None) -> list[KernelRow]:
    """One row per distinct measured kernel (source and kernel name) with a ptxas count."""
    from corpus import store
    from corpus.families import all_samples

    df = store.read(data_dirs or [store.DATA_DIR])
    ok = df[(df["status"] == "ok") & (df["pass"] == "main") & df["registers"].notna()]
    samples = {s.sample_id: s for s in all_samples()}
    try:    # the RL tasks' candidates are measured too
        from rl.tasks import task_samples

        samples.update((s.sample_id, s) for s in task_samples())
    except ImportError:
        pass
    rows: list[KernelRow] = []
    seen: set = set()
    for rec in ok.sort_values(["family", "sample_id"]).to_dict("records"):
        sample = samples.get(rec["sample_id"])
        key = (rec["source_hash"], rec["kernel"])
        if sample is None or key in seen:
            continue
        seen.add(key)
        program = parse(sample.source, f"{sample.family}/{sample.variant}")
        base, targs = split_name_expression(sample.kernel)
        kernel = next((k for k in program.kernels if k.name == base), None)
        if kernel is None:
            continue
        smem = int(rec["static_smem"] or 0) + int(rec["smem"] or 0)
        rows.append(KernelRow(sample.family, sample.kernel, int(rec["registers"]),
                              register_features(program, kernel, _instance_constants(program, kernel, targs)),
                              int(rec["threads"]), smem, register_cap(kernel)))
    return rows


def _instance_constants(program, kernel, targs: list[str]) -> dict:
    """The names with values in the measured instance, as lint and the features see them (the
    walker's constants: the file's and the template's arguments)."""
    from analyzer.access import analyze
    from analyzer.lint import LintSettings, resolve_launch

    if not kernel.template_params:
        return program.constants
    *_, values = resolve_launch(program, kernel, None, LintSettings(), targs)
    return analyze(program, kernel, values).constants


def _design(rows: list[KernelRow]):
    import numpy as np

    return np.array([[1.0] + [float(r.features[f]) for f in FEATURES] for r in rows])


def fit(rows: list[KernelRow]) -> dict[str, float]:
    """Non-negative least squares of ptxas's counts on the features (and a base), rounded."""
    import numpy as np
    from scipy.optimize import nnls

    w, _ = nnls(_design(rows), np.array([float(r.registers) for r in rows]))
    return {name: round(float(v), 3) for name, v in zip(("base",) + FEATURES, w)}


def predict(weights: dict[str, float], rows: list[KernelRow]) -> list[int]:
    """The estimate under `weights` for each row (the fit itself ignores the caps)."""
    return [weighted_registers(r.features, r.cap, weights) for r in rows]


def held_out_predictions(rows: list[KernelRow]) -> list[int]:
    """Each family's kernels estimated with weights fitted on the other families' kernels."""
    out = [0] * len(rows)
    for family in sorted({r.family for r in rows}):
        inside = [i for i, r in enumerate(rows) if r.family == family]
        others = [r for r in rows if r.family != family]
        for i, p in zip(inside, predict(fit(others), [rows[i] for i in inside])):
            out[i] = p
    return out


def metrics(pred: list[int], rows: list[KernelRow]) -> dict[str, float]:
    from corpus.validate import spearman

    arch = models.arch(ARCH)
    low = Options().min_occupancy
    rel = sorted(abs(p - r.registers) / r.registers for p, r in zip(pred, rows))
    occ_same = wrong = missed = 0
    for p, r in zip(pred, rows):
        est = models.occupancy(arch, r.threads, p, r.smem).occupancy
        real = models.occupancy(arch, r.threads, r.registers, r.smem).occupancy
        occ_same += abs(est - real) < 1e-9
        wrong += est < low <= real
        missed += real < low <= est
    n = len(rows)
    return {"kernels": n, "median_rel_error": rel[n // 2], "within_25pct": sum(e <= 0.25 for e in rel) / n,
            "spearman": spearman([float(p) for p in pred], [float(r.registers) for r in rows]),
            "occupancy_equal": occ_same / n, "oc601_wrong": wrong, "oc601_missed": missed}


def write_weights(weights: dict[str, float], held_out: dict[str, float], rows: list[KernelRow], path=WEIGHTS_FILE) -> None:
    families = len({r.family for r in rows})
    held = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in held_out.items()}
    text = ('"""Generated by `python -m corpus fit-registers`: do not edit (run it with --write instead).\n\n'
            "The static register estimate's weights (analyzer.resources.estimate_registers), fitted on ptxas's\n"
            f"counts for {len(rows)} distinct measured kernels of {families} families; FIT holds the estimate's\n"
            'figures on families left out of the fit."""\n'
            f"WEIGHTS = {pformat(weights, width=100, sort_dicts=False)}\n"
            f"FIT = {pformat({'date': dt.date.today().isoformat(), 'kernels': len(rows), 'families': families, 'held_out_families': held}, width=100, sort_dicts=False)}\n")
    Path(path).write_text(text)


def _table(results: list[tuple[str, dict[str, float]]]) -> str:
    lines = ["| weights | kernels | median error | within 25% | Spearman | occupancy = ptxas's | OC601 wrong | OC601 missed |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, m in results:
        lines.append(f"| {name} | {m['kernels']} | {m['median_rel_error']:.0%} | {m['within_25pct']:.0%} | "
                     f"{m['spearman']:.3f} | {m['occupancy_equal']:.0%} | {m['oc601_wrong']} | {m['oc601_missed']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m corpus fit-registers", description=__doc__.splitlines()[0])
    ap.add_argument("--data", action="append", help="data folder(s) (default corpus/data)")
    ap.add_argument("--write", action="store_true", help=f"store the new weights in {WEIGHTS_FILE.name}")
    ns = ap.parse_args(argv)
    try:
        import scipy.optimize  # noqa: F401
    except ImportError:
        print("error: the fit needs scipy (pip install 'cudaperf[model]')", file=sys.stderr)
        return 2
    from analyzer.resources import REGISTER_WEIGHTS

    rows = kernel_rows(ns.data)
    if len({r.family for r in rows}) < 2:
        print("error: the fit needs measured kernels of two families or more", file=sys.stderr)
        return 2
    new = fit(rows)
    held = metrics(held_out_predictions(rows), rows)
    print(_table([("in use, all kernels", metrics(predict(REGISTER_WEIGHTS, rows), rows)),
                  ("new fit, all kernels", metrics(predict(new, rows), rows)),
                  ("new fit, families held out", held)]))
    print("\nnew weights: " + ", ".join(f"{k} {v:g}" for k, v in new.items()))
    if ns.write:
        write_weights(new, held, rows)
        print(f"wrote {WEIGHTS_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
