"""`python -m rl train CONFIG`: GRPO-style training of the built-in transformation policy.

Each step draws `tasks_per_step` tasks, runs `group_size` episodes of `turns` turns on each, asks
the reward core for every turn's reward (surrogate for most, real answers as the scheduler
decides), and takes one policy-gradient step on group-relative advantages of the turns'
discounted returns. Every step is logged (JSONL and CSV in the run directory, a progress bar on
stderr); the run ends with a learning-curve PNG and a summary JSON.

Speedups are reported two ways: as the reward saw them (measured or predicted), and, when a
judge is available (the measured corpus: `Replay`), the true speedup of the same kernels over the
measured baseline — the honest learning curve on a CPU machine.
"""
from __future__ import annotations

import csv
import hashlib
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any, Callable

import numpy as np

from analyzer.cache import cache_root

from .config import TrainConfig
from .core import RewardCore
from .env import EnvConfig, KernelEnv, step_many
from .records import NotMeasured
from .scheduler import Scheduler
from .tasks import Task, family_tasks, get as get_task

__all__ = ["select_tasks", "build_surrogate", "Judge", "RunResult", "train"]


def select_tasks(cfg: TrainConfig, allowed: Callable | None = None) -> list[Task]:
    """The run's tasks: explicit ids, else the families' tasks (optionally only some sizes), in a
    stable order, at most max_tasks, spread over the families. Tasks whose baseline the oracle
    cannot answer are left out when `allowed` is given."""
    if cfg.tasks:
        tasks = [get_task(t) for t in cfg.tasks]
    else:
        all_t = family_tasks()
        fams = cfg.families or tuple(sorted({t.family for t in all_t.values()}))
        unknown = [f for f in fams if not any(t.family == f for t in all_t.values())]
        if unknown:
            raise ValueError(f"unknown famil{'y' if len(unknown) == 1 else 'ies'}: {', '.join(unknown)}")
        per = {f: [t for t in all_t.values() if t.family == f and (not cfg.sizes or t.size in cfg.sizes)] for f in fams}
        tasks = []
        i = 0
        while len(tasks) < cfg.max_tasks and any(i < len(v) for v in per.values()):
            for f in fams:          # round robin: every family gets tasks before any gets two
                if i < len(per[f]) and len(tasks) < cfg.max_tasks:
                    tasks.append(per[f][i])
            i += 1
    if allowed is not None:
        tasks = [t for t in tasks if allowed(t.baseline) and sum(allowed(c) for c in t.candidates) >= 2]
    if not tasks:
        raise ValueError("no task to train on (check tasks / families / sizes, and that the oracle can answer them)")
    return tasks


def _cache_dir() -> Path:
    p = cache_root() / "rl"
    p.mkdir(parents=True, exist_ok=True)
    return p


def build_surrogate(cfg: TrainConfig, tasks: list[Task], log=print):
    """The surrogate the run starts from. "holdout" fits one on the corpus and the measured
    candidates of the other tasks of the run's kinds, without the run's families, so the run meets
    kernels the model never saw (as an RL run on new tasks does); cached on disk."""
    from rewardmodel.surrogate import Surrogate, load_default

    if cfg.surrogate in ("default", ""):
        return load_default()
    if cfg.surrogate != "holdout":
        return Surrogate.load(cfg.surrogate)
    from rewardmodel import dataset
    from rewardmodel.evaluate import chosen_config, load_choice

    fams = sorted({t.family for t in tasks})
    # the corpus, plus the other tasks of the run's own kinds (c, torch), less the run's families;
    # never another kind's tasks: c_histogram would teach a run on the histogram family its answer
    extra = [f"rl.tasks:{k}_task_samples" for k in sorted({t.kind for t in tasks} & {"c", "torch"})]
    table = dataset.load(samples=dataset.samples_with(extra))
    keep = ~np.isin(table.family, fams)
    choice = load_choice()
    key = hashlib.sha256(json.dumps([fams, extra, int(keep.sum()), dataset.analyzer_fingerprint(), choice],
                                    default=str).encode()).hexdigest()[:12]
    path = _cache_dir() / f"holdout-{key}.zip"
    if path.exists():
        try:
            return Surrogate.load(path)
        except Exception:  # noqa: BLE001 - a stale cache is refitted
            pass
    t0 = time.time()
    model = Surrogate(chosen_config())
    model.fit(table.X[keep], table.time_ms[keep], groups=table.family[keep])
    model.save(path)
    log(f"[train] surrogate fitted without {', '.join(fams)}: {int(keep.sum())} rows, {time.time() - t0:.1f}s")
    return model


class Judge:
    """True times from the measured corpus, for reporting only (never a reward, never a cost)."""

    def __init__(self, replay) -> None:
        self.replay = replay

    def time(self, sample) -> float | None:
        try:
            a = self.replay.measure([sample])[0]
        except NotMeasured:
            return None
        return a.time_ms if a.ok else None

    def speedup(self, task: Task, sample) -> float | None:
        b, t = self.time(task.baseline), self.time(sample)
        return b / t if b and t else None


@dataclass
class RunResult:
    config: TrainConfig
    steps: list[dict[str, Any]] = field(default_factory=list)
    best: dict[str, dict[str, Any]] = field(default_factory=dict)   # task id -> the best kernel found
    summary: dict[str, Any] = field(default_factory=dict)
    out_dir: Path | None = None


def _mean(xs) -> float:
    xs = [x for x in xs if x is not None and math.isfinite(x)]
    return float(np.mean(xs)) if xs else math.nan


def _gmean(xs) -> float:
    xs = [x for x in xs if x is not None and math.isfinite(x) and x > 0]
    return float(np.exp(np.mean(np.log(xs)))) if xs else math.nan


def evaluate(policy, tasks: list[Task], core: RewardCore, encoder, turns: int, judge: "Judge | None",
             gamma: float = 0.4) -> dict[str, Any]:
    """One greedy episode per task, rewarded by the surrogate alone (an evaluation costs no GPU time):
    the mean speedup of the last turn's kernel, true (judge) where a judge exists, else as predicted."""
    import torch

    quiet = RewardCore(model=core.model, oracle=None, config=core.config, arch=core.arch, ptxas=core.ptxas)
    quiet._static = core._static          # the same analysis, computed once
    has = getattr(core.oracle, "has", None)
    rng = np.random.default_rng(0)
    envs = [KernelEnv(t, quiet, EnvConfig(max_turns=turns, gamma=gamma)) for t in tasks]
    for e in envs:
        e.reset()
    with torch.no_grad():
        for turn in range(turns):
            picks = []
            for e in envs:
                last = e.turns[-1].scored.breakdown.get("terms") if e.turns else None
                picks.append(policy.act(e.task, e.current, encoder, turn, turns, last, rng, greedy=True, allowed=has).sample)
            step_many(envs, picks)
    final = [e.turns[-1] for e in envs]
    out = {"eval_speedup_reported": _mean(t.scored.speedup for t in final)}
    if judge is not None:
        sp = [judge.speedup(e.task, t.sample) for e, t in zip(envs, final)]
        best = [max((judge.speedup(e.task, c) or 0.0) for c in e.task.candidates) for e in envs]
        out["eval_speedup_true"] = _mean(sp)
        out["eval_gmean_true"] = _gmean(sp)
        out["eval_share_of_best"] = _mean(s / b if s and b else None for s, b in zip(sp, best))
    return out


def train(cfg: TrainConfig, *, oracle=None, model=None, judge: Judge | None = None, out_dir: Path | None = None,
          progress: bool = True, log: Callable[[str], None] | None = None) -> RunResult:
    import torch

    from .policy.transform import Encoder, TransformPolicy, group_advantages

    log = log or (lambda m: print(m, file=sys.stderr, flush=True))
    t_start = time.time()
    if oracle is None and cfg.oracle != "none":
        from .oracle import make_oracle

        oracle = make_oracle(cfg.oracle, **dict(cfg.oracle_options))
    if judge is None and cfg.oracle == "replay" and oracle is not None:
        judge = Judge(oracle)
    has = getattr(oracle, "has", None) if cfg.stay_in_measured else None
    tasks = select_tasks(cfg, allowed=has)
    model = model if model is not None else build_surrogate(cfg, tasks, log)
    scheduler = Scheduler(cfg.scheduler) if oracle is not None else None
    core = RewardCore(model=model, oracle=oracle, scheduler=scheduler)
    encoder = Encoder(core)
    policy = TransformPolicy(encoder.width, cfg.hidden, cfg.seed)
    opt = torch.optim.Adam(policy.parameters(), lr=cfg.lr)
    rng = np.random.default_rng(cfg.seed)
    env_cfg = EnvConfig(max_turns=cfg.turns, gamma=cfg.gamma)
    result = RunResult(cfg)
    out = out_dir if out_dir is not None else cfg.out_path
    out.mkdir(parents=True, exist_ok=True)
    result.out_dir = out
    believed: dict[str, dict[str, tuple[float, Any]]] = {t.id: {} for t in tasks}   # task -> sample id -> (ms, sample)
    log(f"[train] {cfg.name}: {len(tasks)} tasks ({', '.join(sorted({t.family for t in tasks}))}), {cfg.steps} steps "
        f"x {cfg.tasks_per_step} tasks x {cfg.group_size} episodes x {cfg.turns} turns, oracle {cfg.oracle}")

    jsonl = (out / "steps.jsonl").open("w")
    csv_file = (out / "steps.csv").open("w", newline="")
    writer = None
    bar = _progress(cfg.steps, progress)
    order = list(rng.permutation(len(tasks)))
    every = cfg.eval_every or cfg.steps
    evals = [{"step": 0, **evaluate(policy, tasks, core, encoder, cfg.turns, judge, cfg.gamma)}]
    log("[train] before training: " + ", ".join(f"{k} {v:.3f}" for k, v in evals[0].items() if k != "step"))
    try:
        for step in range(cfg.steps):
            t0 = time.time()
            picked = [tasks[order[(step * cfg.tasks_per_step + k) % len(tasks)]] for k in range(cfg.tasks_per_step)]
            envs = [KernelEnv(t, core, env_cfg) for t in picked for _ in range(cfg.group_size)]
            for e in envs:
                e.reset()
            logps: list[list[torch.Tensor]] = [[] for _ in envs]
            ents: list[torch.Tensor] = []
            for turn in range(cfg.turns):
                choices = []
                for i, e in enumerate(envs):
                    last = e.turns[-1].scored.breakdown.get("terms") if e.turns else None
                    c = policy.act(e.task, e.current, encoder, turn, cfg.turns, last, rng, allowed=has)
                    choices.append(c)
                    logps[i].append(c.logp)
                    ents.append(c.entropy)
                step_many(envs, [c.sample for c in choices])
                for e in envs:
                    tr = e.turns[-1]
                    if tr.sample is not None and tr.scored.time_ms:
                        ms = tr.scored.time_ms
                        known = core.measured.get(tr.sample.sample_id)
                        if known is not None and known.ok:
                            ms = known.time_ms
                        believed[e.task.id][tr.sample.sample_id] = (ms, tr.sample)
            # group-relative advantages per task
            loss_terms = []
            for g in range(cfg.tasks_per_step):
                idx = range(g * cfg.group_size, (g + 1) * cfg.group_size)
                adv = group_advantages([envs[i].returns() for i in idx])
                for row, i in zip(adv, idx):
                    for t, a in enumerate(row):
                        loss_terms.append(-float(a) * logps[i][t])
            loss = torch.stack(loss_terms).mean() - cfg.entropy * torch.stack(ents).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()

            rewards = [tr.scored.reward for e in envs for tr in e.turns]
            last_sp = [e.turns[-1].scored.speedup for e in envs]
            rec = {"step": step + 1, "tasks": [t.id for t in picked], "mean_reward": _mean(rewards),
                   "best_reward": max(rewards), "mean_speedup_reported": _mean(last_sp),
                   "loss": float(loss.detach()), "real_answers": core.stats.real, "reused": core.stats.reused,
                   "scored": core.stats.scored,
                   "real_share": scheduler.asked / scheduler.scored if scheduler and scheduler.scored else math.nan,
                   "gpu_s": core.stats.gpu_s, "saved_s": core.saved_s(), "step_s": time.time() - t0}
            if judge is not None:
                true_sp = [judge.speedup(e.task, e.turns[-1].sample) if e.turns[-1].sample is not None else None
                           for e in envs]
                rec["mean_speedup_true"] = _mean(true_sp)
                rec["gmean_speedup_true"] = _gmean(true_sp)
            refits = scheduler.log if scheduler else []
            if refits:
                rec["spearman_before"] = refits[-1]["spearman_before"]
                rec["spearman_after"] = refits[-1].get("spearman_after", math.nan)
                rec["refits"] = len(refits)
            if (step + 1) % every == 0 or step + 1 == cfg.steps:
                ev = evaluate(policy, tasks, core, encoder, cfg.turns, judge, cfg.gamma)
                rec.update(ev)
                evals.append({"step": step + 1, **ev})
            result.steps.append(rec)
            jsonl.write(json.dumps(rec, default=_jsonable) + "\n")
            jsonl.flush()
            flat = {k: v for k, v in rec.items() if k != "tasks"}
            if writer is None:
                extra = ["spearman_before", "spearman_after", "refits", *evals[0].keys()]
                writer = csv.DictWriter(csv_file, fieldnames=list(dict.fromkeys(list(flat) + extra)),
                                        extrasaction="ignore")
                writer.writeheader()
            writer.writerow(flat)
            csv_file.flush()
            bar.update(rec)
    finally:
        bar.close()
        jsonl.close()
        csv_file.close()

    confirmed = _confirm(core, scheduler, tasks, believed)
    # the best kernel per task by what the loop knows (measured where measured, else predicted)
    for t in tasks:
        seen = believed[t.id]
        if not seen:
            continue
        seen = _final_beliefs(core, t, seen)
        sid, (ms, sample) = min(seen.items(), key=lambda kv: kv[1][0])
        entry = {"sample_id": sid, "variant": sample.variant, "believed_ms": ms,
                 "measured": sid in core.measured}
        if judge is not None:
            entry["true_speedup"] = judge.speedup(t, sample)
            entry["true_ms"] = judge.time(sample)
            entry["oracle_best_speedup"] = max((judge.speedup(t, c) or 0.0) for c in t.candidates)
            entry["visited_best_speedup"] = max((judge.speedup(t, s) or 0.0) for _, s in believed[t.id].values())
        result.best[t.id] = entry
    key = "eval_speedup_true" if judge is not None else "eval_speedup_reported"
    result.summary = {
        "name": cfg.name, "tasks": len(tasks), "steps": cfg.steps, "episodes": cfg.steps * cfg.tasks_per_step * cfg.group_size,
        "rewards": core.stats.scored, "real_answers": core.stats.real, "reused_answers": core.stats.reused,
        "real_share": scheduler.asked / scheduler.scored if scheduler and scheduler.scored else None,
        "gpu_s": core.stats.gpu_s, "saved_s": core.saved_s(),
        "distinct_candidates": len(core.seen_ids),
        "curve_metric": key, "curve_start": evals[0].get(key), "curve_end": evals[-1].get(key), "evals": evals,
        "best_speedup_mean": _mean(b.get("true_speedup") for b in result.best.values()) if judge else None,
        "best_speedup_gmean": _gmean(b.get("true_speedup") for b in result.best.values()) if judge else None,
        "oracle_best_mean": _mean(b.get("oracle_best_speedup") for b in result.best.values()) if judge else None,
        "confirmed": confirmed, "refits": scheduler.log if scheduler else [], "wall_s": time.time() - t_start,
        "config": asdict(cfg),
    }
    (out / "summary.json").write_text(json.dumps(result.summary, indent=1, default=_jsonable))
    with (out / "real_vs_surrogate.jsonl").open("w") as f:
        for r in core.real_log:
            f.write(json.dumps(r, default=_jsonable) + "\n")
    (out / "best.json").write_text(json.dumps(result.best, indent=1, default=_jsonable))
    if cfg.plot:
        try:
            plot_curve(result.steps, out / "learning_curve.png", cfg.name, evals, period=max(1, -(-len(tasks) // cfg.tasks_per_step)))
        except ImportError:
            log("[train] matplotlib is not installed: no learning-curve PNG (pip install matplotlib)")
    log(f"[train] done in {result.summary['wall_s']:.0f}s: {key} {result.summary['curve_start']:.3f} -> "
        f"{result.summary['curve_end']:.3f}; real answers {core.stats.real} ({core.stats.gpu_s:.1f} GPU-s, "
        f"~{core.saved_s():.1f} GPU-s saved); logs in {out}")
    core.close()
    return result


def _confirm(core: RewardCore, scheduler: Scheduler | None, tasks: list[Task],
             believed: dict[str, dict[str, tuple[float, Any]]]) -> int:
    """Spend the budget kept back (`SchedulerConfig.reserve`, and whatever the run left) on real
    answers for candidates the run scored but never measured, one at a time, the most valuable
    first; the surrogate keeps learning from them as during the run (and each answer moves its
    task's factor), so every pick is ranked by the model as it then stands. Returns how many were
    measured.

    A candidate's worth (`confirm_by`) is counted in speedup over its task's baseline, the unit of
    the benchmark's mean (a 20x task outweighs a 1.5x one, as it does there), against the task's
    best measured kernel (its measured baseline, or 1x when nothing of the task is measured):
    - "value" (default): the expected improvement E[(S - best measured)+], S the candidate's
      speedup, log-normal around the surrogate's prediction with the spread the surrogate showed
      on this run's real answers (`_run_sigma`; per task once it has two, `_task_spread`). A
      candidate predicted well ahead scores about its predicted gain, as with "point"; a close
      runner-up (predicted a little behind the best measured kernel) still scores what it may
      win, in proportion to its task's scale;
    - "point": the predicted gain, zero when not predicted faster than the best measured kernel;
    - "optimistic": the gain of the interval's optimistic bound."""
    if scheduler is None or core.oracle is None or core.model is None or scheduler.config.budget >= 1.0:
        return 0
    how = scheduler.config.confirm_by
    if how not in ("value", "point", "optimistic"):
        raise ValueError(f"confirm_by must be 'value', 'point' or 'optimistic', got {how!r}")
    done = 0
    skip: set[str] = set()
    while scheduler.allowance(final=True) > 0:
        sigma = _run_sigma(core)
        spread = _task_spread(core, sigma) if how == "value" else {}
        pick, best_v = None, 0.0
        for t in tasks:
            cand = _task_state(core, t, believed[t.id], skip)
            if cand is None:
                continue
            base, known, todo, iv, k = cand
            if how == "value":
                bar = base / min(known) if known else 1.0
                sig = spread.get(t.id, sigma)
                vals = [_lognormal_excess(base / (k * float(p)), sig, bar) if np.isfinite(p) and p > 0 else 0.0
                        for p in iv.time_ms]
            else:
                bar = min(known, default=None)
                est = k * (iv.lo_ms if how == "optimistic" else iv.time_ms)
                vals = [base / e - (base / bar if bar else 1.0) if np.isfinite(e) and e > 0 else 0.0 for e in est]
            for (sid, s), v in zip(todo, vals):
                if v > best_v:
                    pick, best_v = (t, sid, s), v
        if pick is None:
            break
        t, sid, s = pick
        a = core.confirm(t, [s])[0]
        if a is None:           # the oracle cannot answer it: never ask again
            skip.add(sid)
        else:
            done += 1
    return done


def _run_sigma(core: RewardCore) -> float:
    """The surrogate's error on this run's own real answers: a robust standard deviation (1.4826 x
    the median absolute deviation) of log(measured / predicted), each prediction the one made before
    that answer came (task factor included), so out of sample. The model's own intervals are not
    used: on families it never saw, and once refitted on a few far-off answers, they span orders of
    magnitude (an 80% interval of 0.002-70 ms for a 0.3 ms kernel), which would make every such
    candidate look worth measuring. Falls back to 1 (a factor e) with fewer than 3 answers."""
    r = [err for _, err in _log_errors(core)]
    if len(r) < 3:
        return 1.0
    r = np.asarray(r)
    return float(max(1.4826 * np.median(np.abs(r - np.median(r))), 1e-3))


def _log_errors(core: RewardCore) -> list[tuple[str | None, float]]:
    """(task id, log(measured / predicted)) of each real answer of the run that carries both times."""
    return [(e.get("task_id"), math.log(e["measured_ms"] / e["predicted_ms"])) for e in core.real_log
            if e.get("status") == "ok" and e.get("measured_ms") and e.get("predicted_ms")
            and e["measured_ms"] > 0 and e["predicted_ms"] > 0]


def _task_spread(core: RewardCore, pooled: float, prior_answers: float = 2.0) -> dict[str, float]:
    """Per task, the spread of the surrogate's errors among that task's own answers (around their
    median: the task factor takes the offset), shrunk toward the run's pooled spread as if it were
    `prior_answers` more answers. A family the model never saw errs more, within the task too,
    and its candidates deserve more doubt than the run's well-predicted tasks lend them."""
    by_task: dict[str, list[float]] = {}
    for tid, err in _log_errors(core):
        by_task.setdefault(tid, []).append(err)
    out = {}
    for tid, r in by_task.items():
        if len(r) < 2:
            continue
        d = np.asarray(r) - np.median(r)
        out[tid] = float(math.sqrt((float(np.sum(d * d)) + prior_answers * pooled ** 2) / (len(r) + prior_answers)))
    return out


def _task_state(core: RewardCore, t: Task, seen: dict[str, tuple[float, Any]], skip: set[str]):
    """(baseline ms, measured ok times, unmeasured candidates, their interval, task factor) of one
    task under the current model, or None when nothing is left to measure or no baseline is known."""
    todo = [(sid, s) for sid, (_, s) in seen.items()
            if sid not in core.measured and sid not in skip and core.static(s).x is not None]
    if not todo:
        return None
    bx = core.static(t.baseline).x
    iv = core.model.predict_with_uncertainty(np.vstack([core.static(s).x for _, s in todo] + ([bx] if bx is not None else [])))
    k = math.exp(core.task_offset(t))
    base = core._baseline_real.get(t.id) or (k * float(iv.time_ms[-1]) if bx is not None else None)
    if not base:
        return None
    known = [core.measured[sid].time_ms for sid in seen if sid in core.measured and core.measured[sid].ok]
    if core._baseline_real.get(t.id):
        known.append(core._baseline_real[t.id])
    n = len(todo)
    iv = type(iv)(iv.time_ms[:n], iv.lo_ms[:n], iv.hi_ms[:n])
    return base, known, todo, iv, k


def _lognormal_excess(median: float, sigma: float, a: float) -> float:
    """E[(S - a)+] for S log-normal with this median and log-sd."""
    if a <= 0:
        return median * math.exp(sigma * sigma / 2) if math.isfinite(sigma) else math.inf
    if not math.isfinite(sigma) or sigma <= 1e-12:
        return max(0.0, median - a) if math.isfinite(sigma) else math.inf
    d2 = math.log(median / a) / sigma
    phi = NormalDist().cdf
    return max(0.0, median * math.exp(sigma * sigma / 2) * phi(d2 + sigma) - a * phi(d2))


def _final_beliefs(core: RewardCore, task: Task, seen: dict[str, tuple[float, Any]]) -> dict[str, tuple[float, Any]]:
    """Measured times where measured (a candidate that failed its real run is out), else the final
    surrogate's prediction: a refitted model knows more than the one that scored a candidate many
    steps ago."""
    out = dict(seen)
    for sid in seen:
        a = core.measured.get(sid)
        if a is not None:
            if a.ok:
                out[sid] = (a.time_ms, seen[sid][1])
            else:
                del out[sid]
    todo = [(sid, s) for sid, (_, s) in out.items() if sid not in core.measured and core.static(s).x is not None]
    if not todo or core.model is None:
        return out or seen
    pred = core.model.predict(np.vstack([core.static(s).x for _, s in todo])) * math.exp(core.task_offset(task))
    for (sid, s), p in zip(todo, pred):
        out[sid] = (float(p), s)
    return out


def _jsonable(x):
    if isinstance(x, (np.floating, np.integer)):
        return x.item()
    if isinstance(x, Path):
        return str(x)
    return str(x)


class _progress:
    """tqdm when it is installed and wanted, else one line per step to stderr."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.bar = None
        self.enabled = enabled
        if enabled:
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, desc="train", unit="step", file=sys.stderr)
            except ImportError:
                pass

    def update(self, rec: dict) -> None:
        if not self.enabled:
            return
        sp = rec.get("mean_speedup_true", rec.get("mean_speedup_reported"))
        info = f"reward {rec['mean_reward']:.3f} speedup {sp:.2f} real {rec['real_answers']}"
        if self.bar is not None:
            self.bar.set_postfix_str(info)
            self.bar.update(1)
        else:
            print(f"[train] step {rec['step']}: {info}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def plot_curve(steps: list[dict], path: Path, title: str, evals: list[dict] | None = None, period: int = 5) -> None:
    """Left: speedups per step (each step's tasks differ; the moving mean spans one pass over the
    tasks) and the greedy evaluation on all tasks. Right: real share and the surrogate's rank
    correlation with the real answers before and after each refit."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [r["step"] for r in steps]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    for key, label in (("mean_speedup_true", "true speedup (measured corpus)"),
                       ("mean_speedup_reported", "speedup the reward saw")):
        ys = [r.get(key, math.nan) for r in steps]
        if any(math.isfinite(y) for y in ys):
            a1.plot(x, ys, label=label)
            w = min(period, len(ys))
            if w > 1:
                sm = np.convolve(np.nan_to_num(ys, nan=np.nanmean(ys)), np.ones(w) / w, mode="valid")
                a1.plot(x[w - 1:], sm, "--", alpha=0.7, label=f"{label}, {w}-step mean")
    ev = [(r["step"], r.get("eval_speedup_true", r.get("eval_speedup_reported"))) for r in (evals or steps)
          if "eval_speedup_reported" in r]
    if ev:
        a1.plot([e[0] for e in ev], [e[1] for e in ev], "o-", lw=2, label="greedy policy on all tasks (evaluation)")
    a1.set_xlabel("step")
    a1.set_ylabel("mean speedup of the last turn's kernel")
    a1.legend(fontsize=8)
    a1.set_title(title)
    a2.plot(x, [r.get("real_share", math.nan) for r in steps], label="real share of new candidates")
    sp = [r.get("spearman_before", math.nan) for r in steps]
    if any(math.isfinite(v) for v in sp):
        a2.plot(x, sp, label="surrogate rank corr. (before refit)")
        a2.plot(x, [r.get("spearman_after", math.nan) for r in steps], label="after refit")
    a2.set_xlabel("step")
    a2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
