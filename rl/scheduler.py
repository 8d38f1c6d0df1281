"""Which candidates get a real measurement, and when the surrogate learns from them.

Per batch (one task's candidates), in priority order, while the budget allows:
1. the best candidate of the batch by predicted time (a policy's best is what it will build on:
   a wrong prediction there misleads the most);
2. the uncertain ones (relative interval width log(hi/lo) above `uncertainty`) whose optimistic
   bound beats the best real time of the task so far, lowest bound first (`acquisition =
   "optimistic"`, as Bayesian autotuners pick); or simply the widest first (`"width"`);
3. a random share `epsilon` of the rest (keeps the calibration honest where the model is confident).
The budget caps real answers at `budget` x distinct candidates scored so far: a candidate seen
again is not new work (its earlier answer, real or predicted, stands), and an already measured
one costs nothing. Baseline measurements a task needs are charged to the same budget.
`budget=1` measures every new candidate (the all-real arm). A share `reserve` of the budget is
kept back during the run for the end (`allowance(final=True)`): `rl.train` spends it confirming
the unmeasured candidates with the largest expected improvement in speedup over each task's best
measured kernel (`confirm_by`; see `rl.train._confirm`).

Every `refit_every` real answers the surrogate is updated on them (`recalibrate=True`), and the
log records its Spearman rank correlation with the real times on that window before the update
(the model that made the decisions) and after it.
"""
from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import numpy as np

__all__ = ["SchedulerConfig", "Scheduler", "spearman"]


@dataclass(frozen=True)
class SchedulerConfig:
    budget: float = 0.1              # real answers / candidates scored, at most
    epsilon: float = 0.03            # random share of the remaining candidates
    uncertainty: float = 0.7         # log(hi/lo) above this asks for a real answer
    best_per_group: bool = True
    refit_every: int = 16            # K: real answers per surrogate update
    recalibrate: bool = True
    update_mode: str = "boost"       # "boost" (milliseconds) or "refit" (seconds)
    acquisition: str = "optimistic"  # uncertain ones: "optimistic" (could beat the best real time) or "width"
    reserve: float = 0.0             # share of the budget kept for confirming believed-best candidates at the end
    confirm_by: str = "value"        # rank them by expected improvement ("value"), the "point" prediction's gain, or the "optimistic" bound's
    seed: int = 0


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rho without scipy (average ranks for ties); nan for fewer than 3 points."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    if len(a) < 3:
        return math.nan

    def ranks(x):
        order = np.argsort(x, kind="mergesort")
        r = np.empty(len(x))
        r[order] = np.arange(len(x), dtype=float)
        for v in np.unique(x):          # average ties
            m = x == v
            if m.sum() > 1:
                r[m] = r[m].mean()
        return r

    ra, rb = ranks(a), ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return math.nan
    return float(np.corrcoef(ra, rb)[0, 1])


@dataclass
class Scheduler:
    config: SchedulerConfig = field(default_factory=SchedulerConfig)
    scored: int = 0
    asked: int = 0
    log: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.config.seed)
        self._seen: set[str] = set()
        self._best_real: dict[str, float] = {}                           # task id -> best measured ms
        self._window: list[tuple[np.ndarray, float, float, str]] = []   # (x, real ms, predicted ms, group)

    def allowance(self, final: bool = False) -> int:
        """Real answers still allowed: `budget` x candidates scored, less those taken; during the run
        the `reserve` share is kept back for the end (`final=True`: the confirmation pass)."""
        share = self.config.budget * (1.0 if final or self.config.budget >= 1.0 else 1.0 - self.config.reserve)
        return max(0, math.floor(share * self.scored + 1e-9) - self.asked)

    def charge(self, n: int = 1) -> None:
        """Count real answers taken outside `choose` (a task's baseline)."""
        self.asked += n

    def choose(self, task, samples: Sequence[Any], pred: np.ndarray, lo: np.ndarray, hi: np.ndarray,
               known: Sequence[bool], valid: Sequence[bool]) -> list[bool]:
        """One flag per candidate: measure it for real. Known (already measured) ones are free."""
        n = len(samples)
        cfg = self.config
        new = {s.sample_id for s in samples} - self._seen
        self._seen |= new
        self.scored += len(new)
        allow = self.allowance()
        want = [False] * n
        seen: set[str] = set()
        # duplicates in a batch cost one measurement: decide per sample id
        open_ = []
        for i in range(n):
            sid = samples[i].sample_id
            if valid[i] and not known[i] and sid not in seen:
                seen.add(sid)
                open_.append(i)
        if cfg.budget >= 1.0:
            picks = open_
        else:
            picks = []
            if open_ and cfg.best_per_group:
                finite = [i for i in open_ if np.isfinite(pred[i])]
                best_known = min((pred[i] for i in range(n) if known[i] and np.isfinite(pred[i])), default=math.inf)
                if finite:
                    best = min(finite, key=lambda i: pred[i])
                    if pred[best] < best_known:     # the batch's best is already measured: nothing to check
                        picks.append(best)
            width = {i: math.log(hi[i] / lo[i]) if np.isfinite(hi[i]) and np.isfinite(lo[i]) and lo[i] > 0 else math.inf
                     for i in open_}
            if cfg.acquisition == "optimistic":
                # uncertain AND possibly faster than the best real time of the task: what could change
                # the run's answer, most promising (lowest optimistic bound) first
                bar = self._best_real.get(task.id, math.inf)
                lows = {i: lo[i] if np.isfinite(lo[i]) else -math.inf for i in open_}
                for i in sorted(open_, key=lambda i: lows[i]):
                    if width[i] > cfg.uncertainty and lows[i] < bar and i not in picks:
                        picks.append(i)
            else:
                for i in sorted(open_, key=lambda i: -width[i]):
                    if width[i] > cfg.uncertainty and i not in picks:
                        picks.append(i)
            for i in open_:
                if i not in picks and self._rng.random() < cfg.epsilon:
                    picks.append(i)
            picks = picks[:allow]
        sids = {samples[i].sample_id for i in picks}
        for i in range(n):     # every copy of a picked sample shares its answer
            if samples[i].sample_id in sids:
                want[i] = True
        self.asked += len(picks)
        return want

    def note_real(self, task_id: str, time_ms: float) -> None:
        """A real time of the task learned outside `observe` (its baseline): the bar to beat."""
        self._best_real[task_id] = min(self._best_real.get(task_id, math.inf), float(time_ms))

    def observe(self, model, xs: Sequence[np.ndarray], real_ms: Sequence[float], pred_ms: Sequence[float],
                group: str = "") -> dict[str, Any] | None:
        """Take new real answers; refit every `refit_every` of them. Returns the refit's log entry."""
        for x, r, p in zip(xs, real_ms, pred_ms):
            self._window.append((np.asarray(x, float), float(r), float(p), group))
            self._best_real[group] = min(self._best_real.get(group, math.inf), float(r))
        if len(self._window) < self.config.refit_every:
            return None
        X = np.vstack([w[0] for w in self._window])
        y = np.array([w[1] for w in self._window])
        before = np.array([w[2] for w in self._window])
        entry: dict[str, Any] = {"answers": len(y), "spearman_before": spearman(before, y),
                                 "mape_before": float(np.mean(np.abs(before / y - 1)))}
        if self.config.recalibrate:
            model.update(X, y, [w[3] for w in self._window], mode=self.config.update_mode)
            after = model.predict(X)
            entry.update(refit=True, spearman_after=spearman(after, y), mape_after=float(np.mean(np.abs(after / y - 1))))
        else:
            entry.update(refit=False)
        self.log.append(entry)
        self._window.clear()
        return entry

    def summary(self) -> dict[str, Any]:
        return {"config": asdict(self.config), "scored": self.scored, "asked": self.asked,
                "real_share": self.asked / self.scored if self.scored else 0.0, "refits": len(self.log)}
