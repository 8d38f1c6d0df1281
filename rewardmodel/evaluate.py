"""Held-out evaluation of the surrogate and its baselines; writes rewardmodel/EVAL.md.

Splits:
- held-out families: template families in folds, each fold's families never seen in training
  (hand-written kernels are left out of these folds entirely);
- random: rows split at random (a sample is never in train and test);
- hand-written: trained on every template family, tested on the independently written kernels.

Metrics (runtime in ms): Spearman rho over all test rows; within-task pairwise ranking accuracy
(pairs of variants of one task at one size whose measured times differ by more than the noise
margin; a tie in the prediction counts one half); top-1 regret per task (measured time of the
predicted-fastest variant over the measured best, minus one; ties in the prediction are
averaged); MAPE; coverage of the stated interval.

Baselines: `roofline` predicts the roofline bound of the task's bytes and flops (every variant
of a task gets the same time, so it ranks no better than chance inside a task, which is the
point of the comparison); `pipe estimate` is `analyzer.models.time_estimate` alone (the
slowest pipe the analyzer's counts imply, no learning); `linear` is a ridge regression of the
same target on the same analyzer features (median-imputed, standardised).
"""
from __future__ import annotations

import datetime as _dt
import math
import time
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from . import features as F
from .dataset import Table
from .surrogate import Surrogate, SurrogateConfig, roofline_ms, target_base

TIE_MARGIN = 0.03        # measured times within 3% are not a ranking pair (re-measurements differ by ~that)
EVAL_MD = Path(__file__).resolve().parent / "EVAL.md"


# ------------------------------------------------------------------ metrics

def spearman(a: np.ndarray, b: np.ndarray) -> float:
    from scipy.stats import spearmanr

    if len(a) < 3:
        return math.nan
    return float(spearmanr(a, b).statistic)


def pairwise_accuracy(task: np.ndarray, true: np.ndarray, pred: np.ndarray, margin: float = TIE_MARGIN) -> tuple[float, int]:
    correct, pairs = 0.0, 0
    for t in np.unique(task):
        idx = np.flatnonzero(task == t)
        if len(idx) < 2:
            continue
        tt, pp = true[idx], pred[idx]
        i, j = np.triu_indices(len(idx), 1)
        keep = np.abs(np.log(tt[i] / tt[j])) > math.log1p(margin)
        i, j = i[keep], j[keep]
        if not len(i):
            continue
        st = np.sign(tt[i] - tt[j])
        sp = np.sign(pp[i] - pp[j])
        correct += float(np.sum(st == sp)) + 0.5 * float(np.sum(sp == 0))
        pairs += len(i)
    return (correct / pairs if pairs else math.nan), pairs


def top1_regret(task: np.ndarray, true: np.ndarray, pred: np.ndarray) -> np.ndarray:
    out = []
    for t in np.unique(task):
        idx = np.flatnonzero(task == t)
        if len(idx) < 2:
            continue
        tt, pp = true[idx], pred[idx]
        chosen = np.flatnonzero(np.isclose(pp, pp.min(), rtol=1e-9, atol=0))
        out.append(float(np.mean(tt[chosen])) / float(tt.min()) - 1.0)
    return np.array(out)


def mape(true, pred) -> float:
    return float(np.mean(np.abs(pred - true) / true))


@dataclass
class Scores:
    n: int
    tasks: int
    spearman: float
    pairwise: float
    pairs: int
    regret_median: float
    regret_mean: float
    mape: float
    coverage: float = math.nan
    width: float = math.nan          # median hi/lo ratio of the interval

    @classmethod
    def of(cls, task, true, pred, lo=None, hi=None) -> "Scores":
        acc, pairs = pairwise_accuracy(task, true, pred)
        reg = top1_regret(task, true, pred)
        cov = width = math.nan
        if lo is not None:
            cov = float(np.mean((true >= lo) & (true <= hi)))
            width = float(np.median(hi / lo))
        return cls(len(true), len(reg), spearman(true, pred), acc, pairs,
                   float(np.median(reg)) if len(reg) else math.nan,
                   float(np.mean(reg)) if len(reg) else math.nan, mape(true, pred), cov, width)


# ------------------------------------------------------------------ baselines

class Linear:
    """Ridge regression of the surrogate's target on the analyzer's features."""

    def __init__(self, target: str = "log_ratio", alpha: float = 1.0) -> None:
        self.target, self.alpha = target, alpha

    def _t(self, X, y):
        return np.log10(y) - target_base(X, self.target)

    def _prep(self, X):
        X = np.where(np.isnan(X), self.med_, X)
        return (X - self.mu_) / self.sd_

    def fit(self, X, y):
        from sklearn.linear_model import Ridge

        with warnings.catch_warnings():   # a feature unknown in every training row: its median, 0
            warnings.simplefilter("ignore", RuntimeWarning)
            self.med_ = np.nan_to_num(np.nanmedian(X, axis=0), nan=0.0)
        Xf = np.where(np.isnan(X), self.med_, X)
        self.mu_, self.sd_ = Xf.mean(0), Xf.std(0) + 1e-9
        self.m_ = Ridge(alpha=self.alpha).fit(self._prep(X), self._t(X, y))
        return self

    def predict(self, X):
        return 10.0 ** (self.m_.predict(self._prep(X)) + target_base(X, self.target))


# ------------------------------------------------------------------ splits

def family_folds(table: Table, k: int = 8, seed: int = 0) -> list[np.ndarray]:
    """Test-row indices per fold; folds hold out whole template families."""
    fams = np.unique(table.family[table.origin == "family"])
    rng = np.random.default_rng(seed)
    groups = np.array_split(rng.permutation(fams), min(k, len(fams)))
    return [np.flatnonzero(np.isin(table.family, g)) for g in groups if len(g)]


def random_folds(table: Table, k: int = 5, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    perm = rng.permutation(np.flatnonzero(table.origin == "family"))
    return [np.sort(f) for f in np.array_split(perm, k)]


@dataclass
class Run:
    name: str
    true: list = field(default_factory=list)
    task: list = field(default_factory=list)
    family: list = field(default_factory=list)
    pred: dict = field(default_factory=dict)
    lo: list = field(default_factory=list)
    hi: list = field(default_factory=list)
    lo_noptx: list = field(default_factory=list)
    hi_noptx: list = field(default_factory=list)

    def add(self, name, values):
        self.pred.setdefault(name, []).append(values)

    def by_family(self, model: str = "surrogate") -> dict[str, Scores]:
        true, task, fam = (np.concatenate(x) for x in (self.true, self.task, self.family))
        pred = np.concatenate(self.pred[model])
        return {f: Scores.of(task[fam == f], true[fam == f], pred[fam == f]) for f in np.unique(fam)}

    def scores(self) -> dict[str, Scores]:
        true = np.concatenate(self.true)
        task = np.concatenate(self.task)
        out = {}
        for name, parts in self.pred.items():
            pred = np.concatenate(parts)
            if name == "surrogate":
                out[name] = Scores.of(task, true, pred, np.concatenate(self.lo), np.concatenate(self.hi))
            elif name == "surrogate (no ptxas)":
                out[name] = Scores.of(task, true, pred, np.concatenate(self.lo_noptx), np.concatenate(self.hi_noptx))
            else:
                out[name] = Scores.of(task, true, pred)
        return out


def run_split(table: Table, train_test: list[tuple[np.ndarray, np.ndarray]], config: SurrogateConfig, name: str,
              baselines: bool = True, log=print) -> Run:
    run = Run(name)
    for i, (tr, te) in enumerate(train_test):
        if not len(te) or not len(tr):
            continue
        t0 = time.time()
        m = Surrogate(config).fit(table.X[tr], table.time_ms[tr], groups=table.family[tr])
        Xte = table.X[te]
        iv = m.predict_with_uncertainty(Xte)
        iv0 = m.predict_with_uncertainty(F.mask_ptxas(Xte))
        run.true.append(table.time_ms[te])
        run.task.append(table.task_id[te])
        run.family.append(table.family[te])
        run.add("surrogate", iv.time_ms)
        run.lo.append(iv.lo_ms)
        run.hi.append(iv.hi_ms)
        run.add("surrogate (no ptxas)", iv0.time_ms)
        run.lo_noptx.append(iv0.lo_ms)
        run.hi_noptx.append(iv0.hi_ms)
        if baselines:
            run.add("roofline", roofline_ms(Xte))
            run.add("pipe estimate", 10.0 ** target_base(Xte, "log_estimate"))
            run.add("linear", Linear(config.target).fit(table.X[tr], table.time_ms[tr]).predict(Xte))
        log(f"  {name} fold {i + 1}/{len(train_test)}: {len(tr)} train, {len(te)} test, {time.time() - t0:.1f}s")
    return run


def complement(n: int, test: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    mask = allowed.copy()
    mask[test] = False
    return np.flatnonzero(mask)


# ------------------------------------------------------------------ the whole evaluation

CHOICE_JSON = Path(__file__).resolve().parent / "eval_choice.json"


def evaluate(table: Table, config: SurrogateConfig | None = None, k_family: int = 8, k_random: int = 5,
             targets: tuple[str, ...] = ("log_ratio", "log_time", "log_estimate"), depths: tuple[int, ...] = (4, 6),
             colsamples: tuple[float, ...] = (0.5, 0.8), seed_checks: tuple[int, ...] = (1, 2), log=print) -> dict:
    config = config or SurrogateConfig()
    fam_rows = table.origin == "family"
    n = len(table)
    folds = family_folds(table, k_family)
    splits = [(complement(n, te, fam_rows), te) for te in folds]

    hw = np.flatnonzero(table.origin == "handwritten")

    def held_out(cfg: SurrogateConfig, name: str) -> Scores:
        # the choice rests on point predictions: skip the interval calibration (its refits) here
        return run_split(table, splits, replace(cfg, calibration_folds=0), name, baselines=False,
                         log=log).scores()["surrogate"]

    def hand_written(cfg: SurrogateConfig, name: str) -> Scores | None:
        if not len(hw):
            return None
        return run_split(table, [(np.flatnonzero(fam_rows), hw)], replace(cfg, calibration_folds=0), name,
                         baselines=False, log=log).scores()["surrogate"]

    # 1. the target, on held-out families (one seed: the targets differ by more than the seeds do)
    choice_runs = {}
    for target in targets:
        for depth in depths:
            log(f"held-out families, target {target}, depth {depth} (choosing the target)")
            choice_runs[(target, depth)] = held_out(replace(config, target=target, max_depth=depth),
                                                    f"families/{target}/d{depth}")
    target_scores = {f"{t}, depth {d}": s for (t, d), s in choice_runs.items()}
    best_target = min(choice_runs, key=lambda k: (-_nz(choice_runs[k].pairwise), -_nz(choice_runs[k].spearman)))[0]
    # 2. its tree depth and column sampling, on the mean of several seeds (row and column
    # subsampling move one seed's pairwise accuracy by about as much as these settings do), and
    # on the hand-written kernels as much as on the held-out families: deeper trees fit the
    # templates' styles and generalize to other code differently (the RL tasks,
    # bench/surrogate_tasks.py, stay out of the choice)
    seeds = (config.seed,) + tuple(config.seed + s for s in seed_checks)
    tuning: dict[tuple[int, float], dict[int, Scores]] = {}
    tuning_hw: dict[tuple[int, float], dict[int, Scores]] = {}
    for depth in depths:
        for cs in colsamples:
            runs = tuning[(depth, cs)] = {}
            hw_runs = tuning_hw[(depth, cs)] = {}
            for seed in seeds:
                cfg_s = replace(config, target=best_target, max_depth=depth, colsample_bytree=cs, seed=seed)
                if seed == config.seed and cs == config.colsample_bytree and (best_target, depth) in choice_runs:
                    runs[seed] = choice_runs[(best_target, depth)]
                else:
                    log(f"held-out families, target {best_target}, depth {depth}, colsample {cs}, seed {seed}")
                    runs[seed] = held_out(cfg_s, f"families/d{depth}/cs{cs}/seed{seed}")
                got = hand_written(cfg_s, f"handwritten/d{depth}/cs{cs}/seed{seed}")
                if got is not None:
                    hw_runs[seed] = got

    def choosing(k) -> tuple[float, float]:
        both = [tuning[k]] + ([tuning_hw[k]] if tuning_hw[k] else [])
        return (-float(np.mean([_mean(r, "pairwise") for r in both])),
                -float(np.mean([_mean(r, "spearman") for r in both])))

    best = min(tuning, key=choosing)
    cfg = replace(config, target=best_target, max_depth=best[0], colsample_bytree=best[1])
    log(f"held-out families, {best_target}, depth {best[0]}, colsample {best[1]}, with baselines and the calibrated interval")
    family = run_split(table, splits, cfg, "families", log=log)
    # 3. random split, 4. hand-written kernels
    log(f"random split, {best_target}, depth {best[0]}, colsample {best[1]}")
    rnd = run_split(table, [(complement(n, te, fam_rows), te) for te in random_folds(table, k_random)], cfg,
                    "random", log=log)
    hand = None
    if len(hw):
        log("hand-written kernels")
        hand = run_split(table, [(np.flatnonzero(fam_rows), hw)], cfg, "handwritten", log=log)
    return {"target": best_target, "max_depth": best[0], "colsample_bytree": best[1], "target_scores": target_scores,
            "tuning": tuning, "tuning_handwritten": tuning_hw, "family": family.scores(),
            # the kept settings with the other seeds: how much of a figure is luck
            "seeds": {s: tuning[best][s] for s in seeds if s != config.seed},
            "per_family": family.by_family(), "per_family_roofline": family.by_family("roofline"),
            "random": rnd.scores(), "handwritten": hand.scores() if hand else None, "config": cfg,
            "folds": [sorted(set(table.family[f])) for f in folds]}


def _mean(runs: dict[int, Scores], attr: str) -> float:
    vals = [_nz(getattr(s, attr)) for s in runs.values()]
    return float(np.mean(vals)) if vals else -1.0


def load_choice() -> dict:
    """The target, depth and column sampling the last `eval` kept (train uses them); defaults
    where there is none."""
    import json

    try:
        return json.loads(CHOICE_JSON.read_text())
    except (OSError, ValueError):
        return {"target": "log_ratio", "max_depth": 6}


def chosen_config(target: str | None = None) -> SurrogateConfig:
    """The surrogate's settings the last `eval` kept (`target` overrides its target)."""
    choice = load_choice()
    base = SurrogateConfig()
    return replace(base, target=target or choice["target"], max_depth=int(choice.get("max_depth", base.max_depth)),
                   colsample_bytree=float(choice.get("colsample_bytree", base.colsample_bytree)))


def save_choice(result: dict) -> None:
    import json

    CHOICE_JSON.write_text(json.dumps({"target": result["target"], "max_depth": result["max_depth"],
                                       "colsample_bytree": result["colsample_bytree"]}) + "\n")


def _nz(x: float) -> float:
    return -1.0 if x is None or math.isnan(x) else x


# ------------------------------------------------------------------ the report

TARGETS = {"pairwise": 0.85, "spearman": 0.9, "regret_median": 0.10}


def _fmt(x, pct=False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{100 * x:.1f}%" if pct else f"{x:.3f}"


def table_md(scores: dict[str, Scores], interval: bool = True) -> list[str]:
    head = "| model | rows | tasks | Spearman ρ | pairwise acc. (pairs) | top-1 regret median | mean | MAPE |"
    rule = "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    if interval:
        head += " coverage of 80% interval | median hi/lo |"
        rule += " ---: | ---: |"
    lines = [head, rule]
    for name, s in scores.items():
        line = (f"| {name} | {s.n} | {s.tasks} | {_fmt(s.spearman)} | {_fmt(s.pairwise)} ({s.pairs}) | "
                f"{_fmt(s.regret_median, True)} | {_fmt(s.regret_mean, True)} | {_fmt(s.mape, True)} |")
        if interval:
            line += f" {_fmt(s.coverage, True)} | {_fmt(s.width)} |"
        lines.append(line)
    return lines


def per_family_md(scores: dict[str, Scores], roof: dict[str, Scores]) -> list[str]:
    lines = ["| family | rows | tasks | Spearman ρ | pairwise acc. (pairs) | top-1 regret median | MAPE | roofline MAPE |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for f, s in sorted(scores.items(), key=lambda kv: _nz(kv[1].pairwise)):
        lines.append(f"| {f} | {s.n} | {s.tasks} | {_fmt(s.spearman)} | {_fmt(s.pairwise)} ({s.pairs}) | "
                     f"{_fmt(s.regret_median, True)} | {_fmt(s.mape, True)} | {_fmt(roof[f].mape, True)} |")
    return lines


def why_missed(per_family: dict[str, Scores]) -> list[str]:
    ranked = sorted(per_family.items(), key=lambda kv: _nz(kv[1].pairwise))
    worst = [f"{f} ({_fmt(s.pairwise)})" for f, s in ranked[:3] if not math.isnan(s.pairwise)]
    by_mape = sorted(per_family.items(), key=lambda kv: -kv[1].mape)[:2]
    return [f"- lowest within-task accuracy on held-out families: {', '.join(worst)}; largest MAPE: "
            + ", ".join(f"{f} ({_fmt(s.mape, True)})" for f, s in by_mape)
            + " (MAPE is a mean of |error|/time, so a few large over-predictions dominate it)."]


def verdict(scores: dict[str, Scores]) -> list[str]:
    s, r = scores["surrogate"], scores["roofline"]
    out = []
    checks = [("within-task pairwise accuracy", s.pairwise, TARGETS["pairwise"], True),
              ("Spearman ρ", s.spearman, TARGETS["spearman"], True),
              ("median top-1 regret", s.regret_median, TARGETS["regret_median"], False)]
    for name, val, tgt, higher in checks:
        ok = (val >= tgt) if higher else (val <= tgt)
        gap = (tgt - val) if higher else (val - tgt)
        out.append(f"- {name}: {_fmt(val, not higher)} (target {'≥' if higher else '≤'} {_fmt(tgt, not higher)}): "
                   + ("met" if ok else f"**missed** by {_fmt(gap, not higher)}"))
    beats = {"Spearman": s.spearman > r.spearman, "pairwise": s.pairwise > r.pairwise,
             "regret": s.regret_median <= r.regret_median and s.regret_mean < r.regret_mean, "MAPE": s.mape < r.mape}
    out.append("- beats the roofline baseline on: " + ", ".join(f"{k} {'yes' if v else '**no**'}" for k, v in beats.items()))
    return out


def tuning_md(result: dict) -> list[str]:
    """The depth and column-sampling candidates of the kept target, each over the seeds."""
    tuning = result.get("tuning") or {}
    if not tuning:
        return []
    seeds = sorted(next(iter(tuning.values())))
    hand = result.get("tuning_handwritten") or {}
    lines = [f"Depth and column sampling (`colsample_bytree`) for {result['target']}, each trained with seeds "
             f"{', '.join(map(str, seeds))} (row and column subsampling); held-out families and, trained on every "
             "family, the hand-written kernels; point predictions, means over the seeds. Kept: the best mean of the "
             "two pairwise accuracies.",
             "",
             "| depth | colsample | pairwise acc. by seed | mean pairwise | mean Spearman ρ | mean top-1 regret median | "
             "mean MAPE | hand-written: mean pairwise | mean Spearman ρ |",
             "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    def mean(runs, attr):    # shown as a dash where a seed had no figure (`_mean`, for choosing, counts it -1)
        return float(np.mean([math.nan if getattr(s, attr) is None else getattr(s, attr) for s in runs.values()]))

    for (depth, cs), runs in tuning.items():
        by_seed = ", ".join(_fmt(runs[s].pairwise) for s in seeds)
        hw_runs = hand.get((depth, cs)) or {}
        hw_cells = (f"{_fmt(mean(hw_runs, 'pairwise'))} | {_fmt(mean(hw_runs, 'spearman'))}" if hw_runs else "– | –")
        lines.append(f"| {depth} | {cs} | {by_seed} | {_fmt(mean(runs, 'pairwise'))} | {_fmt(mean(runs, 'spearman'))} | "
                     f"{_fmt(mean(runs, 'regret_median'), True)} | {_fmt(mean(runs, 'mape'), True)} | {hw_cells} |")
    return lines


def seed_line(seeds: dict[int, Scores], seed: int) -> list[str]:
    if not seeds:
        return []
    def spread(attr, pct=False):
        return ", ".join(_fmt(getattr(s, attr), pct) for s in seeds.values())
    return [f"- the same model with other seeds ({', '.join(str(k) for k in seeds)}; seed {seed} above, point "
            f"predictions): pairwise {spread('pairwise')}; Spearman {spread('spearman')}; "
            f"median regret {spread('regret_median', True)}; MAPE {spread('mape', True)}"]


def write_markdown(result: dict, table: Table, noise: dict, path: Path = EVAL_MD, data_files: list[str] | None = None,
                   seconds: float | None = None) -> str:
    cfg = result["config"]
    fam = table.family[table.origin == "family"]
    lines = [
        "# Surrogate evaluation",
        "",
        f"Generated by `python -m rewardmodel eval` on {_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC"
        + (f" in {seconds:.0f} s" if seconds else "") + "; do not edit by hand.",
        "",
        "## Data",
        "",
        f"- {len(table)} measured rows (status ok, main pass, H200) joined to current samples: "
        f"{int((table.origin == 'family').sum())} from {len(np.unique(fam))} template families, "
        f"{int((table.origin == 'handwritten').sum())} hand-written kernels in "
        f"{len(np.unique(table.family[table.origin == 'handwritten']))} task groups; "
        f"{len(np.unique(table.task_id))} tasks (family × size).",
        f"- Left out: {table.skipped.get('unknown_sample', 0)} rows whose sample no longer exists (source changed since "
        f"it was measured), {table.skipped.get('not_ok', 0)} rows that did not end ok, "
        f"{table.skipped.get('feature_error', 0)} rows the features failed on; and the RL tasks' "
        f"{table.skipped.get('task_rows', 0)} candidate rows and {table.skipped.get('module_rows', 0)} whole-module rows "
        "(the RL tasks section at the end evaluates the candidates).",
    ]
    if data_files:
        lines.append(f"- Data files: {', '.join(f'`{d}`' for d in data_files)}.")
    if noise:
        lines.append(f"- Measurement noise ({noise['pairs']} samples measured twice): median ratio "
                     f"{noise['median_ratio']:.3f}, 90th percentile {noise['p90_ratio']:.3f}. Pairs of variants "
                     f"closer than {100 * TIE_MARGIN:.0f}% are not counted in the ranking accuracy.")
    lines += [
        f"- Features: schema {F.SCHEMA_VERSION}, {len(F.FEATURE_NAMES)} features. Surrogate: XGBoost, "
        f"{cfg.n_estimators} trees (interval model {cfg.quantile_estimators}), trained on each row with and without the ptxas features.",
        "",
        "## Target, tree depth and column sampling",
        "",
        "Targets: `log_time` is log runtime; `log_ratio` is log(runtime / the task's roofline bound); "
        "`log_estimate` is log(runtime / the pipe estimate, `analyzer.models.time_estimate`). "
        "Held-out families, surrogate only, point predictions (chosen on the same folds reported below, so the "
        f"held-out figures carry a small selection bias over these {len(result['target_scores'])} candidates):",
        "",
        *table_md({f"target {t}": s for t, s in result["target_scores"].items()}, interval=False),
        "",
        *tuning_md(result),
        "",
        f"Kept: **{result['target']}** (best within-task ranking, then Spearman, of the targets), depth "
        f"**{result['max_depth']}**, column sampling **{result['colsample_bytree']}** (best mean within-task ranking "
        "over the seeds of the held-out families and the hand-written kernels, then Spearman; the hand-written "
        "figures below carry that selection's small bias too, the RL tasks' none); `python -m rewardmodel train` "
        "uses them (`rewardmodel/eval_choice.json`).",
        "",
        "## Held-out families",
        "",
        "Folds (each trained on every other template family, never on hand-written kernels): "
        + "; ".join(", ".join(f) for f in result["folds"]) + ".",
        "",
        *table_md(result["family"]),
        "",
        *verdict(result["family"]),
        *seed_line(result.get("seeds") or {}, cfg.seed),
        *why_missed(result["per_family"]),
        "",
        "Per held-out family (surrogate; Spearman within the family; the roofline ranks no two variants of a task but those whose tensor-core share differs):",
        "",
        *per_family_md(result["per_family"], result["per_family_roofline"]),
        "",
        "## Random split (5 folds over template-family rows)",
        "",
        *table_md(result["random"]),
        "",
    ]
    if result["handwritten"]:
        lines += ["## Hand-written kernels (written independently of the templates)",
                  "",
                  "Trained on all template-family rows, tested on `corpus/handwritten` (different coding styles, "
                  "macros, helper device functions, half/bf16 types). Tasks here are a hand-written task group at "
                  "one size.",
                  "",
                  *table_md(result["handwritten"]),
                  ""]
    lines += ["## Notes", "",
              "- `surrogate (no ptxas)` is the same model given rows without the ptxas features (registers, "
              "spills), as a caller without a CUDA compiler would; `surrogate` gets the registers and spills "
              "the measured row recorded (the driver's and ptxas' own numbers for that cubin).",
              "- The roofline baseline gives every variant of a task one time, so its within-task accuracy is "
              "0.5 and its regret is the mean regret of a random pick.",
              "- The pipe estimate (`analyzer.models.time_estimate`) is the slowest of the launch's pipes at "
              "the rates `bench/gpu_pipes.py` measured on the H200 (DRAM for the task's bytes, L2 for the sectors "
              "the accesses touch, the load/store request pipe, shared-memory wavefronts, global atomics, FP32) "
              "plus the launch; no learning. Accesses under a data-dependent condition (a histogram's flush "
              "of its non-empty bins) are left out of it, as it is a lower bound; the model sees their count. "
              "As the base of the `log_estimate` target it gives the trees a time "
              "that extrapolates to kernels unlike the training ones, which trees alone cannot.",
              "- What limits the worst families (our reading of the per-family table, not a measurement): they "
              "win or lose by effects the static features describe only in part: contention of "
              "global atomics, which depends on the data (histogram); data reuse through registers and L1/L2 "
              "that sector counts ignore (matmul, conv2d); and, in streaming kernels, block size and occupancy "
              "effects of a few percent (strided_copy, whose variants mostly differ by less than the noise "
              "margin, so the pairs left are the close ones). Each is the only family of its kind, so holding it "
              "out removes every example of that mechanism.",
              "- Coverage: fraction of test rows whose measured time lies in the stated interval (nominal "
              f"{100 * cfg.coverage:.0f}%, scaled on out-of-family folds inside each training set).",
              ""]
    text = "\n".join(lines) + kept_section(path)
    Path(path).write_text(text)
    return text


# Sections other tools write into EVAL.md (bench/surrogate_tasks.py: the RL tasks' candidates),
# between these markers; `eval` keeps them when it rewrites the file.
SECTION_BEGIN, SECTION_END = "<!-- section:tasks begin -->", "<!-- section:tasks end -->"


def kept_section(path: Path) -> str:
    try:
        old = Path(path).read_text()
    except OSError:
        return ""
    i, j = old.find(SECTION_BEGIN), old.find(SECTION_END)
    return "\n" + old[i:j + len(SECTION_END)] + "\n" if 0 <= i < j else ""


def write_section(body: str, path: Path = EVAL_MD) -> None:
    """Put `body` between the markers at the end of EVAL.md (replacing what was there)."""
    old = Path(path).read_text() if Path(path).exists() else ""
    i, j = old.find(SECTION_BEGIN), old.find(SECTION_END)
    if 0 <= i < j:
        old = old[:i].rstrip("\n") + "\n" + old[j + len(SECTION_END):].lstrip("\n")
    Path(path).write_text(old.rstrip("\n") + "\n\n" + SECTION_BEGIN + "\n" + body.strip("\n") + "\n" + SECTION_END + "\n")
