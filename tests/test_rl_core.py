"""The RL core: tasks, scheduler, reward core, environment, config, training (on replayed H200 data)."""
from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest

from rl import tasks as T
from rl.config import ConfigError, TrainConfig, load_config
from rl.core import RewardCore
from rl.env import EnvConfig, KernelEnv, discounted_returns, step_many
from rl.scheduler import Scheduler, SchedulerConfig, spearman
from rewardmodel.reward import RewardConfig  # noqa: E402

FAIL = RewardConfig().fail_reward

TASK = "transpose/r4K_c4K"


@pytest.fixture(scope="module")
def replay():
    from rl.oracle import Replay

    return Replay()


@pytest.fixture(scope="module")
def model():
    from rewardmodel.surrogate import load_default

    return load_default()


def test_discounted_returns_by_hand():
    assert discounted_returns([1.0, 0.0, 2.0], 0.5) == pytest.approx([1.5, 1.0, 2.0])
    assert discounted_returns([1.0, 1.0], 0.0) == [1.0, 1.0]
    assert discounted_returns([], 0.4) == []


def test_spearman_matches_scipy():
    from scipy.stats import spearmanr

    rng = np.random.default_rng(1)
    a, b = rng.normal(size=40), rng.normal(size=40)
    b[:5] = b[5]                                   # ties
    assert spearman(a, b) == pytest.approx(spearmanr(a, b).statistic, abs=1e-12)
    assert math.isnan(spearman([1, 2], [2, 1]))


def test_family_tasks_and_neighbours():
    tasks = T.family_tasks()
    assert len(tasks) >= 200
    t = tasks[TASK]
    assert t.kind == "family" and t.baseline.baseline and t.baseline in t.candidates
    assert len({s.sample_id for s in t.candidates}) == len(t.candidates)
    moves = T.neighbours(t, t.baseline)
    assert moves
    for name, s in moves:
        key = name.split("=")[0]
        diff = {k for k in set(s.params) | set(t.baseline.params) if s.params.get(k) != t.baseline.params.get(k)}
        assert key in diff and (len(diff) == 1 or key == "kind")
    with pytest.raises(T.UnknownTask, match="unknown task 'transpose/nope'"):
        T.get("transpose/nope")


def test_scheduler_budget_best_and_duplicates():
    t = T.get(TASK)
    cands = list(t.candidates[:10])
    sched = Scheduler(SchedulerConfig(budget=0.2, epsilon=0.0, uncertainty=99.0))
    pred = np.arange(10, 0, -1, dtype=float)       # the last candidate is predicted fastest
    want = sched.choose(t, cands, pred, pred * 0.9, pred * 1.1, known=[False] * 10, valid=[True] * 10)
    assert want == [False] * 9 + [True]            # 20% of 10 new = 2 allowed; only the best is asked for
    # the same candidates again are not new, and the best is known now: nothing to ask
    want = sched.choose(t, cands, pred, pred * 0.9, pred * 1.1, known=[False] * 9 + [True], valid=[True] * 10)
    assert want == [False] * 10 and sched.asked == 1 and sched.scored == 10
    # duplicates in one batch share one measurement; budget 1 measures every new candidate
    allr = Scheduler(SchedulerConfig(budget=1.0))
    batch = [cands[0], cands[0], cands[1]]
    want = allr.choose(t, batch, np.ones(3), np.ones(3), np.ones(3), known=[False] * 3, valid=[True] * 3)
    assert want == [True, True, True] and allr.asked == 2


def test_scheduler_refits_and_logs(model):
    from rewardmodel import dataset

    tab = dataset.load()
    idx = np.flatnonzero(tab.family == "transpose")[:8]
    m = dataclasses.replace(model.config)
    assert m is not model.config
    sched = Scheduler(SchedulerConfig(refit_every=8, update_mode="boost"))
    before = model.predict(tab.X[idx])
    entry = sched.observe(model, list(tab.X[idx]), list(tab.time_ms[idx]), list(before), group="transpose")
    assert entry is not None and entry["refit"] and entry["answers"] == 8
    assert entry["mape_after"] < entry["mape_before"]
    assert sched.log == [entry]


def test_core_measured_and_predicted(replay, model):
    t = T.get(TASK)
    core = RewardCore(model=model, oracle=replay, scheduler=Scheduler(SchedulerConfig(budget=1.0)))
    out = core.score(t, list(t.candidates[:6]))
    base = replay.measure([t.baseline])[0].time_ms
    for s, sc in zip(t.candidates[:6], out):
        real = replay.measure([s])[0]
        assert sc.source == "measured" and sc.time_ms == real.time_ms
        assert sc.speedup == pytest.approx(base / real.time_ms)
        assert sc.breakdown["gates"]["correct"]["passed"] is True
    assert core.stats.real == len({s.sample_id for s in t.candidates[:6]} | {t.baseline.sample_id})
    # copies of one candidate in a batch are one measurement, logged once
    n_real = core.stats.real
    dup = core.score(t, [t.candidates[7]] * 4)
    assert len({d.time_ms for d in dup}) == 1 and core.stats.real == n_real + 1
    assert sum(r["sample_id"] == t.candidates[7].sample_id for r in core.real_log) == 1
    # a second call measures nothing new
    real_before = core.stats.real
    core.score(t, list(t.candidates[:6]))
    assert core.stats.real == real_before
    # without an oracle: surrogate answers against the surrogate's own baseline
    quiet = RewardCore(model=model)
    sc = quiet.score(t, [t.candidates[3]])[0]
    assert sc.source == "surrogate" and sc.interval_ms[0] <= sc.time_ms <= sc.interval_ms[1]
    assert sc.breakdown["gates"]["correct"]["passed"] is None


def test_core_bad_candidate_is_a_failed_score_not_an_exception(model):
    t = T.get(TASK)
    broken = dataclasses.replace(t.baseline, source="this is not CUDA {{{", variant="broken")
    sc = RewardCore(model=model).score(t, [broken])[0]
    assert sc.reward == FAIL and sc.error


def test_env_turns_and_step_many(replay, model):
    t = T.get(TASK)
    core = RewardCore(model=model, oracle=replay, scheduler=Scheduler(SchedulerConfig(budget=0.1)))
    env = KernelEnv(t, core, EnvConfig(max_turns=2, gamma=0.4))
    obs = env.reset()
    assert obs["turn"] == 0 and obs["baseline_variant"] == t.baseline.variant
    nxt = T.neighbours(t, env.current)[0][1]
    obs, r, done = env.step(nxt)
    assert obs["turn"] == 1 and not done and obs["variant"] == nxt.variant
    assert obs["time_source"] in ("surrogate", "measured") and isinstance(obs["findings"], list)
    obs, r2, done = env.step(t.baseline)
    assert done and env.returns() == pytest.approx([r + 0.4 * r2, r2])
    with pytest.raises(RuntimeError, match="reset"):
        env.step(t.baseline)
    envs = [KernelEnv(t, core) for _ in range(3)]
    for e in envs:
        e.reset()
    res = step_many(envs, [t.candidates[0], t.candidates[1], "no code here"])
    assert [o["turn"] for o, _, _ in res] == [1, 1, 1]
    assert res[2][1] == FAIL and "no CUDA code" in res[2][0]["error"]


def test_config_errors(tmp_path):
    p = tmp_path / "c.toml"
    p.write_text('name = "x"\nstep = 3\n')
    with pytest.raises(ConfigError, match="unknown key 'step'"):
        load_config(p)
    p.write_text('steps = "many"\n')
    with pytest.raises(ConfigError, match="steps must be a number"):
        load_config(p)
    p.write_text('[scheduler]\nbudget = 0.2\nrefit_every = 4\n')
    cfg = load_config(p)
    assert cfg.scheduler.budget == 0.2 and cfg.scheduler.refit_every == 4
    y = tmp_path / "c.yaml"
    y.write_text("name: y\nfamilies: [transpose]\nscheduler: {budget: 0.5}\n")
    cfg = load_config(y)
    assert cfg.families == ("transpose",) and cfg.scheduler.budget == 0.5
    with pytest.raises(ConfigError, match="no such config"):
        load_config(tmp_path / "missing.toml")


def test_shipped_configs_load():
    from rl.cli import resolve_config

    for name in ("demo", "configs/demo", "gpu", "c", "torch"):
        cfg = load_config(resolve_config(name))
        assert isinstance(cfg, TrainConfig)
    assert load_config(resolve_config("demo")).oracle == "replay"
    assert load_config(resolve_config("gpu")).oracle == "gpu"


def test_train_small_run_writes_logs_and_learns(tmp_path, replay, model):
    """A short run of the demo's setup: the greedy policy's true speedup after training beats the
    untrained one (the same measured data, the same seed)."""
    from rl.train import Judge, train

    cfg = TrainConfig(name="t", families=("transpose", "reduction", "softmax"), max_tasks=6, steps=12,
                      tasks_per_step=3, group_size=6, turns=3, eval_every=6, plot=True,
                      scheduler=SchedulerConfig(budget=0.1, refit_every=4, update_mode="boost"))
    r = train(cfg, oracle=replay, model=model, judge=Judge(replay), out_dir=tmp_path, progress=False,
              log=lambda m: None)
    for name in ("steps.jsonl", "steps.csv", "summary.json", "best.json", "learning_curve.png",
                 "real_vs_surrogate.jsonl"):
        assert (tmp_path / name).exists(), name
    lines = (tmp_path / "steps.jsonl").read_text().splitlines()
    assert len(lines) == 12 and json.loads(lines[-1])["step"] == 12
    s = r.summary
    assert s["real_share"] <= 0.1 + 1e-9 + 6 / max(1, s["distinct_candidates"])   # + one baseline per task
    assert s["curve_end"] > s["curve_start"]
    assert all(b["true_speedup"] > 0 for b in r.best.values())


def test_scheduler_reserve_keeps_budget_for_the_end():
    t = T.get(TASK)
    cands = list(t.candidates[:20])
    sched = Scheduler(SchedulerConfig(budget=0.2, reserve=0.5, epsilon=0.0, uncertainty=99.0))
    pred = np.arange(20, 0, -1, dtype=float)
    sched.choose(t, cands, pred, pred * 0.9, pred * 1.1, known=[False] * 20, valid=[True] * 20)
    assert sched.asked == 1                          # the batch's best; 2 of the 4 allowed are kept back
    assert sched.allowance() == 1 and sched.allowance(final=True) == 3
    # budget 1 (the all-real arm) keeps nothing back
    assert Scheduler(SchedulerConfig(budget=1.0, reserve=0.5)).config.reserve == 0.5
    allr = Scheduler(SchedulerConfig(budget=1.0, reserve=0.5))
    want = allr.choose(t, cands, pred, pred, pred, known=[False] * 20, valid=[True] * 20)
    assert all(want) and allr.allowance() == allr.allowance(final=True) == 0


def test_core_confirm_charges_and_logs(replay, model):
    t = T.get(TASK)
    sched = Scheduler(SchedulerConfig(budget=0.1, refit_every=100))
    core = RewardCore(model=model, oracle=replay, scheduler=sched)
    s = t.candidates[5]
    got = core.confirm(t, [s, s])
    assert got[0] is not None and got[0].time_ms == replay.measure([s])[0].time_ms and got[1] is got[0]
    assert sched.asked == 1 and core.stats.real == 1 and len(core.real_log) == 1
    core.confirm(t, [s])                              # known: free
    assert sched.asked == 1 and core.stats.real == 1


def test_train_confirms_with_the_reserve(tmp_path, replay, model):
    from rl.train import Judge, train

    cfg = TrainConfig(name="t", families=("transpose", "reduction"), max_tasks=4, steps=4,
                      tasks_per_step=2, group_size=6, turns=3, eval_every=0, plot=False,
                      scheduler=SchedulerConfig(budget=0.1, reserve=0.5, refit_every=100))
    r = train(cfg, oracle=replay, model=model, judge=Judge(replay), out_dir=tmp_path, progress=False,
              log=lambda m: None)
    s = r.summary
    assert s["confirmed"] >= 1
    assert s["real_share"] <= 0.1 + 4 / max(1, s["distinct_candidates"]) + 1e-9   # + one baseline per task
    for b in r.best.values():       # a measured pick is believed at its measured time
        if b["measured"]:
            assert b["believed_ms"] == pytest.approx(b["true_ms"])


def test_core_gives_no_surrogate_speed_to_work_it_cannot_count_and_measures_it_first(model):
    """A candidate that repeats work by `goto` (rewardmodel.blind): without an oracle no speed from
    the surrogate; with a scheduler its interval is (0, inf), so the optimistic pick measures it first."""
    t = T.get(TASK)
    src = t.baseline.source
    at = src.index("{", src.index("__global__")) + 1
    jumpy = dataclasses.replace(t.baseline, source=src[:at] + "\n    int z_ = 0;\nagain_:\n    if (++z_ < 2) goto again_;\n" + src[at:],
                                variant="jumpy")
    sc = RewardCore(model=model).score(t, [jumpy, t.candidates[3]])
    assert sc[0].source == "none" and sc[0].time_ms is None and sc[0].breakdown["blind"], sc[0].breakdown
    assert sc[1].source == "surrogate" and sc[1].time_ms is not None
    picked = []

    class Spy(Scheduler):
        def choose(self, task, samples, pred, lo, hi, known, valid):
            picked.append((list(lo), list(hi)))
            return [False] * len(samples)
    RewardCore(model=model, oracle=object(), scheduler=Spy(SchedulerConfig(budget=0.1))).score(t, [jumpy, t.candidates[3]])
    (lo, hi), = picked
    assert lo[0] == 0.0 and hi[0] == math.inf and 0 < lo[1] < hi[1] < math.inf
    want = Scheduler(SchedulerConfig(budget=0.5, best_per_group=False, epsilon=0.0)).choose(
        t, [jumpy, t.candidates[3]], np.array([1.0, 1.0]), np.array(lo), np.array(hi), known=[False, False], valid=[True, True])
    assert want[0]
