"""The reward core every RL entry point shares: candidates in, rewards with their breakdown out.

One batch of candidates for one task is scored in four steps:
1. static analysis per candidate (lint, features, gates, structural terms), cached by sample id;
2. the surrogate predicts every candidate's time with an interval, in one batched call;
3. the scheduler picks the few that get a real answer (uncertain ones, a random share, the best
   of the batch) within its budget; the oracle measures them; every K real answers the
   scheduler refits the surrogate;
4. each candidate's reward: gates, then the speed term (log speedup over the task's baseline,
   measured against a measured baseline, predicted against a predicted one, so a surrogate's
   bias cancels), then structural terms.

A candidate measured once is never measured again: its real answer is kept and reused.
Adapters (TRL, verl, OpenRLHF, the HTTP server) call `score_texts`; the environment and the
built-in policy call `score` with `Sample`s.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Sequence

import numpy as np

from corpus.families.base import Sample
from rewardmodel import features as F
from rewardmodel.reward import Breakdown, RewardConfig, finish, measured_gates, reward as _reward

from .records import NotMeasured, Oracle, RealAnswer
from .tasks import Task, get as get_task

__all__ = ["Scored", "RewardCore", "CoreStats"]


@dataclass
class Scored:
    """One candidate's reward and everything behind it (plain data: log it, send it, show it to a policy)."""

    task_id: str
    sample_id: str
    reward: float
    time_ms: float | None = None
    source: str = "none"                       # "surrogate", "measured" or "none"
    speedup: float | None = None
    interval_ms: tuple[float, float] | None = None
    breakdown: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    real: RealAnswer | None = None
    features: np.ndarray | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items() if k not in ("features", "real")}
        d["real"] = self.real.to_dict() if self.real else None
        return d

    @property
    def findings(self) -> list[str]:
        return list(self.breakdown.get("findings", []))


@dataclass
class CoreStats:
    scored: int = 0
    real: int = 0                 # real answers obtained (new measurements only)
    reused: int = 0               # candidates answered from an earlier real measurement
    gpu_s: float = 0.0            # recorded cost of the real answers
    failed_static: int = 0


@dataclass
class _Static:
    """What does not change between calls: the breakdown without speed, the feature row."""

    breakdown: Breakdown | None
    x: np.ndarray | None
    error: str = ""


class RewardCore:
    def __init__(self, model=None, oracle: Oracle | None = None, scheduler=None, config: RewardConfig | None = None,
                 arch: str = "sm_90", ptxas: bool = False, task_correction: bool = True) -> None:
        self.model = model
        self.oracle = oracle
        self.scheduler = scheduler
        self.config = config or RewardConfig()
        self.arch = arch
        self.ptxas = ptxas
        self.stats = CoreStats()
        self._static: dict[str, _Static] = {}
        self.measured: dict[str, RealAnswer] = {}
        self._baseline_real: dict[str, float | None] = {}
        self.seen_ids: set[str] = set()
        self.real_log: list[dict[str, Any]] = []     # each new real answer beside the surrogate's prediction
        self._task_ids: dict[str, list[str]] = {}      # task id -> its measured sample ids with features
        self.task_correction = task_correction

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_defaults(cls, oracle_name: str = "replay", scheduler=None, model=None, **kw) -> "RewardCore":
        """The shipped surrogate, an oracle by name ("replay", "gpu", "ray" or "none"), a default scheduler."""
        from rewardmodel.surrogate import load_default

        from .scheduler import Scheduler

        oracle = None
        if oracle_name != "none":
            from .oracle import make_oracle

            oracle = make_oracle(oracle_name)
        return cls(model=model or load_default(), oracle=oracle,
                   scheduler=scheduler if scheduler is not None else (Scheduler() if oracle else None), **kw)

    # ------------------------------------------------------------------ static part
    def static(self, sample: Sample) -> _Static:
        hit = self._static.get(sample.sample_id)
        if hit is not None:
            return hit
        from rewardmodel.dataset import sample_args

        try:
            br, feat, _ = _reward(sample.source, sample.kernel, grid=sample.grid, block=sample.block, smem=sample.smem,
                                  args=sample_args(sample), problem=F.Problem(sample.bytes or None, sample.flops or None),
                                  arch=self.arch, ptxas=self.ptxas, config=self.config,
                                  path=f"{sample.family}/{sample.variant}.cu")
            st = _Static(br, feat.vector() if feat is not None else None,
                         "" if feat is not None else (br.failed_gate or "parse") + ": " +
                         br.gates[br.failed_gate or "parse"].detail)
        except Exception as exc:  # noqa: BLE001 - a candidate that breaks the analyzer scores as a failure
            st = _Static(None, None, f"analysis failed: {type(exc).__name__}: {exc}")
        self._static[sample.sample_id] = st
        return st

    # ------------------------------------------------------------------ real answers
    def _measure(self, samples: Sequence[Sample]) -> list[RealAnswer | None]:
        """Real answers for these samples, reusing earlier ones and measuring each distinct sample
        once; None where the oracle cannot answer (a replay oracle asked about a candidate nobody
        measured)."""
        out: list[RealAnswer | None] = [self.measured.get(s.sample_id) for s in samples]
        firsts: dict[str, Sample] = {}
        for s, a in zip(samples, out):
            if a is None:
                firsts.setdefault(s.sample_id, s)
        self.stats.reused += sum(a is not None for a in out)
        if firsts and self.oracle is not None:
            batch = list(firsts.values())
            try:
                answers: list[RealAnswer | None] = list(self.oracle.measure(batch))
            except NotMeasured:
                answers = []
                for s in batch:     # answer the measurable ones, one by one
                    try:
                        answers.append(self.oracle.measure([s])[0])
                    except NotMeasured:
                        answers.append(None)
            for s, a in zip(batch, answers):
                if a is None:
                    continue
                self.measured[s.sample_id] = a
                self.stats.real += 1
                self.stats.gpu_s += a.cost_s
            out = [a if a is not None else self.measured.get(s.sample_id) for s, a in zip(samples, out)]
        return out

    def baseline_ms(self, task: Task) -> float | None:
        """The task baseline's measured time (one real answer per task, charged to the scheduler's
        budget, reused), or None without an oracle. Asked for only when a measured candidate needs it:
        surrogate answers are compared with the surrogate's baseline."""
        if task.id not in self._baseline_real:
            known = self.measured.get(task.baseline.sample_id)
            if known is None and self.oracle is not None and self.scheduler is not None:
                self.scheduler.charge()
            a = known or (self._measure([task.baseline])[0] if self.oracle is not None else None)
            self._baseline_real[task.id] = a.time_ms if a is not None and a.ok else None
            if a is not None and a.ok and self.scheduler is not None:
                self.scheduler.note_real(task.id, a.time_ms)
            if a is not None and a.ok and known is None and self.static(task.baseline).x is not None:
                self._task_ids.setdefault(task.id, []).append(a.sample_id)
        return self._baseline_real[task.id]

    def task_offset(self, task: Task) -> float:
        """log(real / predicted), the median over the task's real answers under the current model: a
        surrogate that misjudges a family it never saw is often off by one factor for the whole task,
        and predicted times are compared with measured ones of the same task (the scheduler's bar,
        the best kernel found). 0 without real answers. The speed term is unchanged by it: the
        predicted baseline gets the same factor."""
        ids = [sid for sid in self._task_ids.get(task.id, ()) if self.measured[sid].ok]
        if not ids or self.model is None:
            return 0.0
        X = np.vstack([self._static[sid].x for sid in ids])
        real = np.array([self.measured[sid].time_ms for sid in ids])
        return float(np.median(np.log(real / self.model.predict(X))))

    def saved_s(self) -> float:
        """GPU-seconds the surrogate saved: distinct candidates rewarded without a real run, at the
        mean recorded cost of a real answer (a repeat of a candidate costs nothing either way)."""
        return max(0, len(self.seen_ids - set(self.measured))) * self.mean_real_cost()

    def mean_real_cost(self) -> float:
        costs = [a.cost_s for a in self.measured.values()]
        return float(np.mean(costs)) if costs else 0.0

    # ------------------------------------------------------------------ scoring
    def score(self, task: Task, samples: Sequence[Sample]) -> list[Scored]:
        """Rewards for a batch of candidates of one task (a GRPO group, or one turn of many episodes)."""
        statics = [self.static(s) for s in samples]
        ok = [i for i, st in enumerate(statics) if st.x is not None]
        n = len(samples)
        pred = np.full(n, np.nan)
        lo = np.full(n, np.nan)
        hi = np.full(n, np.nan)
        base_pred = None
        if self.model is not None and ok:
            base_st = self.static(task.baseline)
            rows = [statics[i].x for i in ok] + ([base_st.x] if base_st.x is not None else [])
            iv = self.model.predict_with_uncertainty(np.vstack(rows))
            k = math.exp(self.task_offset(task)) if self.task_correction else 1.0
            pred[ok], lo[ok], hi[ok] = k * iv.time_ms[:len(ok)], k * iv.lo_ms[:len(ok)], k * iv.hi_ms[:len(ok)]
            if base_st.x is not None:
                base_pred = k * float(iv.time_ms[-1])
            for i in ok:        # work the surrogate cannot see: as uncertain as can be, measured first
                if statics[i].breakdown.blind:
                    lo[i], hi[i] = 0.0, math.inf

        # which candidates get a real answer
        real: list[RealAnswer | None] = [self.measured.get(s.sample_id) for s in samples]
        if self.oracle is not None:
            if self.scheduler is not None:
                want = self.scheduler.choose(task, samples, pred, lo, hi, known=[a is not None for a in real],
                                             valid=[st.x is not None for st in statics])
            else:
                want = [st.x is not None for st in statics]        # no scheduler: every candidate is measured
            idx = [i for i in range(n) if want[i] and real[i] is None]
            if idx:
                self._take_real(task, samples, statics, idx, real, pred, lo, hi)
        base_real = self.baseline_ms(task) if any(a is not None and a.ok for a in real) else None

        out = []
        for i, (s, st) in enumerate(zip(samples, statics)):
            out.append(self._finish(task, s, st, real[i], pred[i], lo[i], hi[i], base_real, base_pred))
        self.stats.scored += n
        self.stats.failed_static += sum(st.x is None for st in statics)
        self.seen_ids.update(s.sample_id for s in samples)
        return out

    def _take_real(self, task: Task, samples: Sequence[Sample], statics: Sequence[_Static], idx: Sequence[int],
                   real: list, pred: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> None:
        """Measure samples[idx] (already chosen and charged), log each new answer beside its prediction,
        and hand the new ok ones to the scheduler (which refits every K of them)."""
        got = self._measure([samples[i] for i in idx])
        logged: set[str] = set()
        new: list[int] = []             # first copy of each new ok answer, for the refit
        for i, a in zip(idx, got):
            real[i] = a
            if a is None or a.sample_id in logged:     # copies of one candidate: one answer
                continue
            logged.add(a.sample_id)
            if a.ok:
                new.append(i)
                if statics[i].x is not None:
                    self._task_ids.setdefault(task.id, []).append(a.sample_id)
            self.real_log.append({"task_id": task.id, "sample_id": a.sample_id,
                                  "variant": samples[i].variant, "status": a.status,
                                  "measured_ms": a.time_ms, "predicted_ms": _f(pred[i]),
                                  "interval_ms": [_f(lo[i]), _f(hi[i])], "cost_s": a.cost_s,
                                  "origin": a.origin})
        if self.scheduler is not None and self.model is not None:
            self.scheduler.observe(self.model, [statics[i].x for i in new], [real[i].time_ms for i in new],
                                   [pred[i] for i in new], group=task.id)

    def confirm(self, task: Task, samples: Sequence[Sample]) -> list[RealAnswer | None]:
        """Real answers for candidates the run already scored (the end-of-run confirmation of its
        believed-best kernels): each new one is charged to the scheduler's budget like any other."""
        if self.oracle is None:
            return [self.measured.get(s.sample_id) for s in samples]
        statics = [self.static(s) for s in samples]
        n = len(samples)
        real: list[RealAnswer | None] = [self.measured.get(s.sample_id) for s in samples]
        pred = np.full(n, np.nan)
        lo = np.full(n, np.nan)
        hi = np.full(n, np.nan)
        ok = [i for i, st in enumerate(statics) if st.x is not None]
        if self.model is not None and ok:
            iv = self.model.predict_with_uncertainty(np.vstack([statics[i].x for i in ok]))
            k = math.exp(self.task_offset(task)) if self.task_correction else 1.0
            pred[ok], lo[ok], hi[ok] = k * iv.time_ms, k * iv.lo_ms, k * iv.hi_ms
        idx, ids = [], set()
        for i, s in enumerate(samples):
            if real[i] is None and s.sample_id not in ids:
                ids.add(s.sample_id)
                idx.append(i)
        if idx:
            if self.scheduler is not None:
                self.scheduler.charge(len(idx))
            self._take_real(task, samples, statics, idx, real, pred, lo, hi)
            for i, s in enumerate(samples):
                real[i] = self.measured.get(s.sample_id, real[i])
        return real

    def _finish(self, task: Task, s: Sample, st: _Static, real: RealAnswer | None, pred: float, lo: float, hi: float,
                base_real: float | None, base_pred: float | None) -> Scored:
        cfg = self.config
        if st.breakdown is None:
            return Scored(task.id, s.sample_id, cfg.fail_reward, error=st.error,
                          breakdown={"reward": cfg.fail_reward, "gates": {"parse": {"passed": False, "detail": st.error}}})
        br = replace(st.breakdown, gates=dict(st.breakdown.gates), terms=dict(st.breakdown.terms))
        time_ms, source, base, interval = None, "none", None, None
        if real is not None:
            measured_gates(br.gates, real.measurement(), real.origin)
            if real.ok:
                time_ms, source, base = real.time_ms, "measured", base_real
        if time_ms is None and not math.isnan(pred) and (real is None or real.ok) and not br.blind:
            time_ms, source, base, interval = float(pred), "surrogate", base_pred, (float(lo), float(hi))
        br.time_ms, br.speed_source, br.interval_ms, br.baseline_ms = time_ms, source, interval, base
        finish(br, cfg)
        failed = br.failed_gate
        err = f"{failed}: {br.gates[failed].detail}" if failed else ""
        speedup = base / time_ms if time_ms and base else None
        return Scored(task.id, s.sample_id, br.reward, time_ms, source, speedup, interval, br.to_dict(), err, real,
                      st.x)

    def score_texts(self, task_ids: Sequence[str], texts: Sequence[str]) -> list[Scored]:
        """Rewards for model-written replies (each: a code block with a `// launch:` line), in order.
        A reply that does not parse, or names an unknown task, scores the fail reward with its error."""
        from .submission import SubmissionError, parse_submission

        if len(task_ids) != len(texts):
            raise ValueError(f"{len(task_ids)} task ids for {len(texts)} texts")
        out: list[Scored | None] = [None] * len(texts)
        groups: dict[str, list[tuple[int, Sample]]] = {}
        tasks: dict[str, Task] = {}
        for i, (tid, text) in enumerate(zip(task_ids, texts)):
            try:
                task = tasks.get(tid) or get_task(tid)
                tasks[tid] = task
                sample = parse_submission(task, text)
            except (SubmissionError, KeyError, ValueError) as exc:
                msg = str(exc).strip("'\"")
                out[i] = Scored(str(tid), "", self.config.fail_reward, error=msg,
                                breakdown={"reward": self.config.fail_reward,
                                           "gates": {"submission": {"passed": False, "detail": msg}}})
                continue
            groups.setdefault(tid, []).append((i, sample))
        for tid, items in groups.items():
            for (i, _), scored in zip(items, self.score(tasks[tid], [s for _, s in items])):
                out[i] = scored
        return [o for o in out if o is not None]

    def close(self) -> None:
        if self.oracle is not None:
            self.oracle.close()


def _f(x) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None
