"""The end-of-run confirmation pass (rl.train._confirm): which unmeasured candidates get the budget kept back."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from rewardmodel.surrogate import Interval
from rl.records import RealAnswer
from rl.scheduler import Scheduler, SchedulerConfig
from rl.train import _confirm, _lognormal_excess, _run_sigma, _task_spread


def test_lognormal_excess_matches_monte_carlo_and_the_point_gain():
    rng = np.random.default_rng(0)
    for median, sigma, a in ((20.0, 0.3, 24.0), (3.0, 0.2, 2.0), (1.5, 1.0, 4.0)):
        s = median * np.exp(sigma * rng.standard_normal(1_000_000))
        assert _lognormal_excess(median, sigma, a) == pytest.approx(np.maximum(s - a, 0).mean(), rel=0.02, abs=1e-3)
    # no spread: the point gain (or nothing)
    assert _lognormal_excess(5.0, 0.0, 3.0) == pytest.approx(2.0)
    assert _lognormal_excess(2.0, 0.0, 3.0) == 0.0
    # the same relative shortfall is worth more on a task of larger speedups
    assert _lognormal_excess(16.0, 0.2, 20.0) > 5 * _lognormal_excess(1.6, 0.2, 2.0)


def _entry(measured, predicted, status="ok"):
    return {"status": status, "measured_ms": measured, "predicted_ms": predicted}


def test_run_sigma_is_robust_and_out_of_sample():
    assert _run_sigma(SimpleNamespace(real_log=[_entry(1.0, 1.1)])) == 1.0        # too few answers
    log = [_entry(1.0, p) for p in (0.8, 0.9, 1.0, 1.1, 1.25)]
    s = _run_sigma(SimpleNamespace(real_log=log))
    assert 0.05 < s < 0.3
    # one far-off answer (a family the model never saw) does not make every candidate look uncertain
    assert _run_sigma(SimpleNamespace(real_log=log + [_entry(0.3, 0.01)])) < 0.3
    # failed runs carry no time
    assert _run_sigma(SimpleNamespace(real_log=log + [_entry(None, 0.01, "wrong_result")])) == pytest.approx(s)


def test_task_spread_is_the_tasks_own_error_around_its_offset_shrunk_to_the_run():
    def e(task, measured, predicted, status="ok"):
        return {**_entry(measured, predicted, status), "task_id": task}
    log = [e("new", 1.0, p) for p in (0.2, 1.0, 5.0)]                     # a family the model never saw
    log += [e("known", 1.0, p) for p in (2.0, 2.1, 1.9)]                  # off by 2x, but consistently
    log += [e("once", 1.0, 0.1), e("failed", None, 1.0, "wrong_result"), e("failed", None, 1.0, "wrong_result")]
    pooled = 0.3
    out = _task_spread(SimpleNamespace(real_log=log), pooled)
    assert set(out) == {"new", "known"}                                   # one answer, or none ok: the pooled spread
    # the offset (the task factor's job) is not spread: "known" is near the prior; "new" far above
    assert out["known"] < pooled
    d = np.log([5.0, 1.0, 0.2])
    assert out["new"] == pytest.approx(np.sqrt((np.sum(d ** 2) + 2 * pooled ** 2) / 5))
    assert out["new"] > 3 * pooled


class _Model:
    """Predicts the time written in a candidate's one feature."""

    def predict_with_uncertainty(self, X):
        t = np.asarray(X, float)[:, 0]
        return Interval(t, t / 2, t * 2)

    def predict(self, X):
        return np.asarray(X, float)[:, 0]


class _Core:
    """Just what _confirm reads: measured answers, features, the model, a baseline, a real log."""

    def __init__(self, scheduler, truth, predicted, measured, baselines):
        self.scheduler, self.truth, self.predicted = scheduler, truth, predicted
        self.oracle, self.model = object(), _Model()
        self.measured = {sid: _answer(sid, truth[sid]) for sid in measured}
        self._baseline_real = dict(baselines)
        self.real_log = [_entry(1.0, p) for p in (0.8, 0.9, 1.0, 1.1, 1.25)]     # a run's answers so far
        self.asked: list[str] = []

    def static(self, s):
        return SimpleNamespace(x=np.array([self.predicted[s.sample_id]]))

    def task_offset(self, task):
        return 0.0

    def confirm(self, task, samples):
        s = samples[0]
        self.scheduler.charge(1)
        self.asked.append(s.sample_id)
        a = self.measured[s.sample_id] = _answer(s.sample_id, self.truth[s.sample_id])
        self.real_log.append(_entry(a.time_ms, self.predicted[s.sample_id]))
        return [a]


def _answer(sid, ms):
    return RealAnswer(sample_id=sid, status="ok", time_ms=ms)


def _two_tasks(confirm_by, answers=1):
    """A task of ~20x speedups whose runner-up (predicted a little behind its best measured kernel)
    is in truth the fastest, and a task of ~2x whose runner-up is predicted far behind."""
    sched = Scheduler(SchedulerConfig(budget=0.1, reserve=1.0, confirm_by=confirm_by))
    sched.scored = 10 * answers
    truth = {"a1": 0.05, "a2": 0.04, "b1": 0.5, "b2": 0.9}
    predicted = {"a1": 0.05, "a2": 0.06, "b1": 0.5, "b2": 0.9, "A0": 1.0, "B0": 1.0}
    core = _Core(sched, truth, predicted, measured=["a1", "b1"], baselines={"A": 1.0, "B": 1.0})
    tasks = [SimpleNamespace(id=i, baseline=SimpleNamespace(sample_id=f"{i}0")) for i in ("A", "B")]
    sample = {sid: SimpleNamespace(sample_id=sid) for sid in truth}
    believed = {"A": {k: (predicted[k], sample[k]) for k in ("a1", "a2")},
                "B": {k: (predicted[k], sample[k]) for k in ("b1", "b2")}}
    return core, sched, tasks, believed


def test_confirm_by_value_measures_the_close_runner_up_of_the_larger_task():
    core, sched, tasks, believed = _two_tasks("value")
    assert sched.allowance(final=True) == 1
    assert _confirm(core, sched, tasks, believed) == 1
    assert core.asked == ["a2"] and sched.allowance(final=True) == 0


def test_confirm_by_point_measures_nothing_predicted_behind():
    core, sched, tasks, believed = _two_tasks("point")
    assert _confirm(core, sched, tasks, believed) == 0 and core.asked == []


def test_confirm_spends_no_more_than_the_allowance():
    core, sched, tasks, believed = _two_tasks("value", answers=2)
    assert sched.allowance(final=True) == 2
    assert _confirm(core, sched, tasks, believed) == 2
    assert sorted(core.asked) == ["a2", "b2"] and sched.allowance(final=True) == 0


def test_confirm_by_rejects_an_unknown_rule():
    core, sched, tasks, believed = _two_tasks("nonsense")
    with pytest.raises(ValueError, match="confirm_by"):
        _confirm(core, sched, tasks, believed)
