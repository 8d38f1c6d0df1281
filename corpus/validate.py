"""`python -m corpus validate`: the analyzer's static estimates beside the H200's hardware counters.

For every measured sample with counters (the corpus' kernels and the RL tasks' candidates,
rl/tasks), the analyzer lints the sample's own source with the launch it ran with (block, grid,
dynamic shared memory, scalar arguments), and its per-kernel estimates are compared with what
Nsight Compute counted:

- global loads and stores: sectors per request (requests weighted by the trip counts the
  analyzer infers) against l1tex__t_sectors / l1tex__t_requests;
- shared memory: wavefronts per request against l1tex__data_pipe_lsu_wavefronts /
  smsp__inst_executed_op_shared, and conflicts per request;
- registers: the static estimate, ptxas (the NVRTC compile log) and the counter;
- occupancy: theoretical (ours, with ptxas registers) against ncu's theoretical and achieved.

Writes corpus/VALIDATION.md (generated, never edited by hand) and optionally a CSV of rows.
"""
from __future__ import annotations

import argparse
import datetime as dt
import math
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from analyzer import models
from analyzer.lint import LaunchSpec, LintSettings, lint_source
from analyzer.rules import Options, all_rules, select

HERE = Path(__file__).resolve().parent
REPORT = HERE / "VALIDATION.md"
TOLERANCE = 0.10
TARGET_SHARE = 0.90
# Validation samples more loop iterations and every thread of a block than the lint default.
VALIDATION_OPTIONS = Options(max_iters=8)


@dataclass
class Row:
    sample_id: str
    family: str
    variant: str
    size: str
    kernel: str
    gld_static: float | None
    gld_measured: float | None
    gst_static: float | None
    gst_measured: float | None
    shld_static: float | None        # wavefronts per request
    shld_measured: float | None
    shst_static: float | None
    shst_measured: float | None
    shld_ways_static: float | None   # n-way degree: wavefronts / conflict-free wavefronts
    shld_ways_measured: float | None
    shst_ways_static: float | None
    shst_ways_measured: float | None
    shld_conf_static: float | None   # conflicts per request
    shld_conf_measured: float | None
    shst_conf_static: float | None
    shst_conf_measured: float | None
    regs_static: int | None
    regs_ptxas: float | None
    regs_ncu: float | None
    occ_static: float | None         # with ptxas registers
    occ_ncu: float | None
    occ_achieved: float | None
    unknown_loads: bool
    unknown_stores: bool
    gld_req_static: float | None = None   # global load / store requests of the whole launch
    gld_req_measured: float | None = None
    gst_req_static: float | None = None
    gst_req_measured: float | None = None
    note: str = ""


def _ratio(a, b) -> float | None:
    if a is None or b is None or (isinstance(a, float) and math.isnan(a)) or (isinstance(b, float) and math.isnan(b)):
        return None
    return float(a) / float(b) if b else None


def _within(static: float | None, measured: float | None, tol: float = TOLERANCE) -> bool | None:
    if static is None or measured is None:
        return None
    if measured == 0:
        return abs(static) < 1e-9
    return abs(static - measured) <= tol * abs(measured)


def static_row(sample, rec) -> Row:
    """Lint one sample's source with its real launch and put its estimates beside its counters."""
    scalars = {a.name: a.value for a in sample.args if hasattr(a, "value")}
    spec = LaunchSpec(block=tuple(sample.block), grid=tuple(sample.grid), smem=sample.smem, args=scalars)
    rules = select(all_rules(), ["OC601"], [])  # the estimates are what we want; one cheap rule
    res = lint_source(sample.source, f"{sample.family}/{sample.variant}", kernels=[sample.kernel],
                      launches={sample.kernel: spec}, settings=LintSettings(options=VALIDATION_OPTIONS), rules=rules)
    if not res.kernels:
        raise LookupError(f"kernel {sample.kernel} not found by the analyzer")
    k = res.kernels[0]
    ctx = res.contexts[0]
    accs, ests = ctx.accesses.accesses, ctx.estimates
    unknown_loads = any(a.space == "global" and a.kind == "load" and e is None for a, e in zip(accs, ests))
    unknown_stores = any(a.space == "global" and a.kind == "store" and e is None for a, e in zip(accs, ests))

    def shared_ways(kind):
        sel = [e for a, e in zip(accs, ests) if a.space == "shared" and a.kind == kind and e is not None]
        ideal = sum(e.ideal_units for e in sel)
        return (sum(e.units for e in sel) / ideal) if ideal else None

    def measured_ways(w, c):
        wv, cv = num(w), num(c)
        return wv / (wv - cv) if wv and cv is not None and wv > cv else None

    def shared_conf(kind):
        sel = [e for a, e in zip(accs, ests) if a.space == "shared" and a.kind == kind and e is not None]
        req = sum(e.requests for e in sel)
        return (sum(e.units - e.ideal_units for e in sel) / req) if req else None

    def num(name):
        v = rec.get(name)
        return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)

    ptxas_regs = num("registers")
    occ_static = None
    if ptxas_regs:
        occ_static = models.occupancy(models.arch("sm_90"), sample.threads_per_block, int(ptxas_regs),
                                      int(num("static_smem") or 0) + sample.smem).occupancy
    sh = lambda w, r: _ratio(num(w), num(r))  # noqa: E731
    return Row(
        sample.sample_id, sample.family, sample.variant, sample.size, sample.kernel,
        k.global_load_sectors_per_request, sh("gld_sectors", "gld_requests"),
        _store_only(ctx), sh("gst_sectors", "gst_requests"),
        k.shared_load_wavefronts_per_request, sh("shld_wavefronts", "shld_requests"),
        k.shared_store_wavefronts_per_request, sh("shst_wavefronts", "shst_requests"),
        shared_ways("load"), measured_ways("shld_wavefronts", "shld_bank_conflicts"),
        shared_ways("store"), measured_ways("shst_wavefronts", "shst_bank_conflicts"),
        shared_conf("load"), sh("shld_bank_conflicts", "shld_requests"),
        shared_conf("store"), sh("shst_bank_conflicts", "shst_requests"),
        k.registers if k.registers_source == "estimate" else None, ptxas_regs, num("ncu_registers"),
        occ_static, (num("theoretical_occupancy_pct") or 0) / 100 if num("theoretical_occupancy_pct") is not None else None,
        (num("achieved_occupancy_pct") or 0) / 100 if num("achieved_occupancy_pct") is not None else None,
        unknown_loads, unknown_stores,
        _launch_requests(ctx, sample, "load"), num("gld_requests"),
        _launch_requests(ctx, sample, "store"), num("gst_requests"),
    )


def _launch_requests(ctx, sample, kind: str) -> float | None:
    """Warp-level requests of a kernel's global loads (stores) over its whole launch: the estimates'
    requests for the block the models simulate, times the blocks (what ncu's l1tex__t_requests
    counts for op_ld / op_st; atomics are neither). None if one of them is not estimated."""
    sel = [e for a, e in zip(ctx.accesses.accesses, ctx.estimates) if a.space == "global" and a.kind == kind]
    if not sel or any(e is None for e in sel):
        return None
    gx, gy, gz = sample.grid
    return sum(e.requests for e in sel) * gx * gy * gz


def _store_only(ctx) -> float | None:
    """Sectors per request of plain stores (ncu's op_st counts no atomics)."""
    sel = [e for a, e in zip(ctx.accesses.accesses, ctx.estimates) if a.space == "global" and a.kind == "store" and e]
    req = sum(e.requests for e in sel)
    return sum(e.units for e in sel) / req if req else None


def spearman(xs: list[float], ys: list[float]) -> float | None:
    if len(xs) < 3:
        return None
    from scipy.stats import spearmanr

    rho = spearmanr(xs, ys).statistic
    return None if rho is None or math.isnan(rho) else float(rho)


# ------------------------------------------------------------------ the report

@dataclass
class Metric:
    name: str
    static: str
    measured: str
    estimable: callable  # row -> bool (the analyzer gave an estimate and the counter exists)
    target: bool = True  # counts toward the 90% target


METRICS = [
    Metric("global load sectors/request", "gld_static", "gld_measured",
           lambda r: r.gld_static is not None and r.gld_measured is not None and not r.unknown_loads),
    Metric("global store sectors/request", "gst_static", "gst_measured",
           lambda r: r.gst_static is not None and r.gst_measured is not None and not r.unknown_stores),
    Metric("shared load bank-conflict degree (n-way)", "shld_ways_static", "shld_ways_measured",
           lambda r: r.shld_ways_static is not None and r.shld_ways_measured is not None),
    Metric("shared store bank-conflict degree (n-way)", "shst_ways_static", "shst_ways_measured",
           lambda r: r.shst_ways_static is not None and r.shst_ways_measured is not None),
    # ncu's shared "requests" (smsp__inst_executed_op_shared_*) count warp instructions whose lanes are all
    # predicated off, which make no wavefront; the analyzer counts only warps with an active lane.
    # Requests count the analyzer's loop trip counts and lane masks directly (the sectors per request
    # above weight them). Not a target: the compiler may merge neighbouring loads into one wider one
    # or drop a repeated load, and every block is taken to do what the simulated one does.
    Metric("global load requests per launch", "gld_req_static", "gld_req_measured",
           lambda r: r.gld_req_static is not None and r.gld_req_measured is not None, target=False),
    Metric("global store requests per launch", "gst_req_static", "gst_req_measured",
           lambda r: r.gst_req_static is not None and r.gst_req_measured is not None, target=False),
    Metric("shared load wavefronts/request", "shld_static", "shld_measured",
           lambda r: r.shld_static is not None and r.shld_measured is not None, target=False),
    Metric("shared store wavefronts/request", "shst_static", "shst_measured",
           lambda r: r.shst_static is not None and r.shst_measured is not None, target=False),
]


def _fmt(x, digits=2) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def _reason(metric: Metric, rows: list[Row]) -> str:
    """A short diagnosis of why a family's estimates miss, from the rows themselves."""
    bad = [r for r in rows if metric.estimable(r) and not _within(getattr(r, metric.static), getattr(r, metric.measured))]
    if not bad:
        return ""
    over = sum(1 for r in bad if getattr(r, metric.static) > getattr(r, metric.measured))
    ratio = [getattr(r, metric.static) / getattr(r, metric.measured) for r in bad if getattr(r, metric.measured)]
    med = sorted(ratio)[len(ratio) // 2] if ratio else float("nan")
    direction = "over-estimates" if over > len(bad) / 2 else "under-estimates"
    return f"{direction} (median static/measured {med:.2f} over {len(bad)} samples)"


def _held_out_registers() -> str:
    from analyzer.register_weights import FIT

    m = FIT.get("held_out_families")
    if not m:
        return "- static estimate on families left out of its fit: not fitted yet (`python -m corpus fit-registers --write`)."
    return (f"- static estimate on families left out of its fit (`python -m corpus fit-registers`, {FIT['kernels']} "
            f"distinct kernels of {FIT['families']} families): median relative error {m['median_rel_error']:.0%}, "
            f"within 25% for {m['within_25pct']:.0%}; Spearman ρ {m['spearman']:.3f}; the occupancy it implies is "
            f"ptxas's for {m['occupancy_equal']:.0%}; OC601 would fire wrongly {m['oc601_wrong']} times and miss "
            f"{m['oc601_missed']}.")


def report(rows: list[Row], failures: Counter, samples_total: int, data_info: str) -> str:
    out = ["# Static estimates vs. H200 hardware counters", "",
           f"Generated by `python -m corpus validate` on {dt.datetime.now(dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} "
           f"from the measured data in `corpus/data/` ({data_info}). Do not edit by hand.", "",
           f"A static estimate *matches* when it is within {TOLERANCE:.0%} of the measured value (exactly, where the "
           f"counter is zero). Target: ≥ {TARGET_SHARE:.0%} of the kernels the analyzer gives an estimate for.", "",
           f"Samples with counters: {samples_total}; analyzed: {len(rows)}; not analyzable: {sum(failures.values())}"
           + (f" ({', '.join(f'{k}: {v}' for k, v in failures.most_common())})" if failures else ""), "",
           "## Summary", "",
           "| metric | kernels with an estimate | within 10% | share | Spearman ρ | target met |",
           "| --- | ---: | ---: | ---: | ---: | --- |"]
    for m in METRICS:
        est = [r for r in rows if m.estimable(r)]
        hits = [r for r in est if _within(getattr(r, m.static), getattr(r, m.measured))]
        rho = spearman([getattr(r, m.static) for r in est], [getattr(r, m.measured) for r in est])
        share = len(hits) / len(est) if est else None
        met = ("yes" if share is not None and share >= TARGET_SHARE else "no") if m.target else "(not a target)"
        out.append(f"| {m.name} | {len(est)} | {len(hits)} | {_fmt(share * 100 if share is not None else None, 1)}% | "
                   f"{_fmt(rho, 3)} | {met} |")
    # conflicts per request (absolute tolerance of 0.1 conflict per request or 10%)
    conf = [r for r in rows if r.shld_conf_static is not None and r.shld_conf_measured is not None]
    conf_hits = [r for r in conf if abs(r.shld_conf_static - r.shld_conf_measured) <= max(0.1, 0.1 * r.shld_conf_measured)]
    out += ["", "The bank-conflict degree is wavefronts over conflict-free wavefronts: for the hardware, "
            "`wavefronts / (wavefronts - bank_conflicts)` of the shared load (store) pipe. Wavefronts per request "
            "are shown too, for information: ncu counts a request for every warp instruction, also one whose lanes "
            "are all predicated off (it makes no wavefront), while the analyzer counts warps with an active lane.", "",
            f"Shared-load bank conflicts per request (within 0.1 or 10%): {len(conf_hits)} of {len(conf)} kernels"
            + (f" ({len(conf_hits) / len(conf):.1%})" if conf else "") + ".", ""]
    out += ["Coverage: kernels whose global loads the analyzer could not estimate (an index that depends on loaded "
            f"data): {sum(1 for r in rows if r.unknown_loads)} of {len(rows)}.", ""]

    out += ["## Per family", "",
            "| family | kernels | gld match | gst match | shld n-way match | shst n-way match |",
            "| --- | ---: | ---: | ---: | ---: | ---: |"]
    by_family: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_family[r.family].append(r)
    missed: list[tuple[str, str, str]] = []
    for fam in sorted(by_family):
        cells = []
        for m in [m for m in METRICS if m.target]:
            est = [r for r in by_family[fam] if m.estimable(r)]
            if not est:
                cells.append("–")
                continue
            hits = sum(1 for r in est if _within(getattr(r, m.static), getattr(r, m.measured)))
            cells.append(f"{hits}/{len(est)}")
            if hits / len(est) < TARGET_SHARE:
                missed.append((fam, m.name, _reason(m, by_family[fam])))
        out.append(f"| {fam} | {len(by_family[fam])} | " + " | ".join(cells) + " |")
    out += ["", "## Families below the target", ""]
    if missed:
        out += ["| family | metric | what the data says |", "| --- | --- | --- |"]
        out += [f"| {f} | {m} | {why} |" for f, m, why in missed]
    else:
        out.append("None.")

    out += ["", "## Worst disagreements", "",
            "| family | variant | size | metric | static | measured |", "| --- | --- | --- | --- | ---: | ---: |"]
    worst = []
    for r in rows:
        for m in [m for m in METRICS if m.target]:
            if m.estimable(r):
                s, v = getattr(r, m.static), getattr(r, m.measured)
                err = abs(math.log((s + 1e-9) / (v + 1e-9)))
                worst.append((err, r, m.name, s, v))
    worst.sort(key=lambda t: -t[0])
    for err, r, name, s, v in worst[:25]:
        if err < math.log(1 + TOLERANCE):
            break
        out.append(f"| {r.family} | {r.variant} | {r.size} | {name} | {_fmt(s)} | {_fmt(v)} |")

    out += ["", "## Registers", ""]
    regs = [r for r in rows if r.regs_static is not None and r.regs_ptxas]
    if regs:
        err = sorted(abs(r.regs_static - r.regs_ptxas) / r.regs_ptxas for r in regs)
        within = sum(1 for e in err if e <= 0.25)
        agree = sum(1 for r in rows if r.regs_ptxas and r.regs_ncu and r.regs_ptxas == r.regs_ncu)
        both = sum(1 for r in rows if r.regs_ptxas and r.regs_ncu)
        out += [f"- static estimate vs ptxas: median relative error {err[len(err) // 2]:.0%}, within 25% for "
                f"{within} of {len(regs)} kernels; Spearman ρ "
                f"{_fmt(spearman([r.regs_static for r in regs], [r.regs_ptxas for r in regs]), 3)} (the estimate's "
                "weights are fitted on these counts: see the next line for kernels it did not see).",
                _held_out_registers(),
                f"- ptxas (NVRTC log) vs the launch counter: equal for {agree} of {both} kernels."]
    out += ["", "## Occupancy", ""]
    occ = [r for r in rows if r.occ_static is not None and r.occ_ncu is not None]
    if occ:
        eq = sum(1 for r in occ if abs(r.occ_static - r.occ_ncu) <= 0.01)
        ach = [r for r in occ if r.occ_achieved is not None]
        out += [f"- theoretical occupancy, ours (ptxas registers) vs ncu: equal (±1 point) for {eq} of {len(occ)} kernels.",
                f"- achieved / theoretical (ncu): median "
                f"{_fmt(sorted(r.occ_achieved / r.occ_ncu for r in ach if r.occ_ncu)[len(ach) // 2] if ach else None)}; "
                f"Spearman ρ of our theoretical vs achieved {_fmt(spearman([r.occ_static for r in ach], [r.occ_achieved for r in ach]), 3)}."]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m corpus validate", description=__doc__.splitlines()[0])
    ap.add_argument("--data", action="append", help="data folder(s) (default corpus/data)")
    ap.add_argument("--out", default=str(REPORT), help="markdown report path")
    ap.add_argument("--csv", help="also write the per-sample rows as CSV")
    ap.add_argument("--limit", type=int, help="validate at most this many samples (quick look)")
    ns = ap.parse_args(argv)

    from corpus import store
    from corpus.families import all_samples

    df = store.read(ns.data or [store.DATA_DIR])
    if not len(df):
        print("error: no measured data in corpus/data", file=sys.stderr)
        return 2
    counted = df[(df["status"] == "ok") & (df["has_counters"] == True) & (df["pass"] == "main")]  # noqa: E712
    if ns.limit:
        counted = counted.head(ns.limit)
    samples = {s.sample_id: s for s in all_samples()}
    try:    # the RL tasks' candidates are measured with counters too (rl/tasks: c and torch ports)
        from rl.tasks import task_samples

        samples.update((s.sample_id, s) for s in task_samples())
    except ImportError:
        pass
    rows: list[Row] = []
    failures: Counter = Counter()
    total = len(counted)
    for i, rec in enumerate(counted.to_dict("records"), 1):
        sample = samples.get(rec["sample_id"])
        if sample is None:
            failures["sample no longer generated"] += 1
            continue
        try:
            rows.append(static_row(sample, rec))
        except (LookupError, RecursionError) as exc:
            failures[type(exc).__name__] += 1
        if i % 200 == 0 or i == total:
            print(f"\rvalidated {i}/{total}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    gpus = ", ".join(sorted(df["gpu"].dropna().unique()))
    info = f"{len(df)} rows, {gpus}, {df['date'].min()} to {df['date'].max()}"
    text = report(rows, failures, total, info)
    Path(ns.out).write_text(text)
    if ns.csv:
        import pandas as pd
        pd.DataFrame([r.__dict__ for r in rows]).to_csv(ns.csv, index=False)
    print(text.split("## Per family")[0])
    print(f"wrote {ns.out}", file=sys.stderr)
    return 0
