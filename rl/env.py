"""A multi-turn episode: the policy submits a kernel, the environment answers with feedback and a reward.

The observation after each turn is what a kernel author would want to read: the compile log
(the real run's message, or "not compiled"), the lint findings behind the structural terms,
the time with its source (surrogate or measured) and interval, the speedup over the task's
baseline, and the reward breakdown. Up to `max_turns` turns; each turn's return is its score
plus the discounted scores of the later turns (gamma 0.4 by default), as multi-turn kernel RL
work credits refinement turns.

`step_many` advances several episodes at once and scores each task's candidates in one batch,
so a GRPO group costs one surrogate call and one scheduling decision.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from corpus.families.base import Sample

from .core import RewardCore, Scored
from .tasks import Task

__all__ = ["EnvConfig", "KernelEnv", "Turn", "discounted_returns", "step_many", "observation"]


@dataclass(frozen=True)
class EnvConfig:
    max_turns: int = 4
    gamma: float = 0.4


@dataclass
class Turn:
    sample: Sample | None
    scored: Scored
    observation: dict[str, Any]


def discounted_returns(scores: Sequence[float], gamma: float) -> list[float]:
    """R_t = s_t + gamma * s_{t+1} + gamma^2 * s_{t+2} + ..."""
    out = [0.0] * len(scores)
    acc = 0.0
    for t in range(len(scores) - 1, -1, -1):
        acc = scores[t] + gamma * acc
        out[t] = acc
    return out


def observation(task: Task, turn: int, sample: Sample | None, scored: Scored) -> dict[str, Any]:
    br = scored.breakdown
    real = scored.real
    if real is not None:
        log = real.message or ("compiled and ran" if real.status == "ok" else real.status)
    elif sample is None:
        log = "no kernel: the reply did not give one that could be launched"
    else:
        compile_gate = br.get("gates", {}).get("compile", {})
        log = compile_gate.get("detail") or "not compiled (surrogate answer)"
    return {
        "turn": turn, "task_id": task.id, "source": sample.source if sample is not None else "",
        "variant": sample.variant if sample is not None else "", "compile_log": log,
        "findings": scored.findings, "time_ms": scored.time_ms, "time_source": scored.source,
        "interval_ms": scored.interval_ms, "speedup": scored.speedup, "reward": scored.reward,
        "breakdown": br, "error": scored.error,
    }


@dataclass
class KernelEnv:
    """One episode on one task. `reset()` then `step(candidate)` until `done`."""

    task: Task
    core: RewardCore
    config: EnvConfig = field(default_factory=EnvConfig)
    turns: list[Turn] = field(default_factory=list)

    def reset(self) -> dict[str, Any]:
        self.turns = []
        b = self.task.baseline
        return {"turn": 0, "task_id": self.task.id, "description": self.task.description, "size": self.task.size,
                "baseline_source": b.source, "baseline_variant": b.variant}

    @property
    def done(self) -> bool:
        return len(self.turns) >= self.config.max_turns

    @property
    def current(self) -> Sample:
        """The kernel the next turn refines: the last valid one, else the baseline."""
        for t in reversed(self.turns):
            if t.sample is not None and not t.scored.error:
                return t.sample
        return self.task.baseline

    def candidate(self, submission: Sample | str) -> Sample | Scored:
        """A Sample from a submission; text is parsed (a parse error becomes a failed Scored)."""
        if isinstance(submission, Sample):
            return submission
        from .submission import SubmissionError, parse_submission

        try:
            return parse_submission(self.task, submission)
        except SubmissionError as exc:
            cfg = self.core.config
            return Scored(self.task.id, "", cfg.fail_reward, error=str(exc),
                          breakdown={"reward": cfg.fail_reward, "gates": {"submission": {"passed": False,
                                                                                         "detail": str(exc)}}})

    def record(self, sample: Sample | None, scored: Scored) -> tuple[dict[str, Any], float, bool]:
        if self.done:
            raise RuntimeError(f"episode on {self.task.id} is over after {self.config.max_turns} turns: reset() it")
        obs = observation(self.task, len(self.turns) + 1, sample, scored)
        self.turns.append(Turn(sample, scored, obs))
        return obs, scored.reward, self.done

    def step(self, submission: Sample | str) -> tuple[dict[str, Any], float, bool]:
        c = self.candidate(submission)
        if isinstance(c, Scored):
            return self.record(None, c)
        return self.record(c, self.core.score(self.task, [c])[0])

    def returns(self) -> list[float]:
        return discounted_returns([t.scored.reward for t in self.turns], self.config.gamma)

    def best(self) -> Turn | None:
        valid = [t for t in self.turns if t.sample is not None and not t.scored.error and t.scored.time_ms]
        return min(valid, key=lambda t: t.scored.time_ms) if valid else None


def step_many(envs: Sequence[KernelEnv], submissions: Sequence[Sample | str]) -> list[tuple[dict[str, Any], float, bool]]:
    """Advance every episode by one turn; candidates of one task are scored as one batch."""
    if len(envs) != len(submissions):
        raise ValueError(f"{len(envs)} episodes, {len(submissions)} submissions")
    cands = [env.candidate(s) for env, s in zip(envs, submissions)]
    scored: list[Scored | None] = [c if isinstance(c, Scored) else None for c in cands]
    by_task: dict[str, list[int]] = {}
    for i, c in enumerate(cands):
        if not isinstance(c, Scored):
            by_task.setdefault(envs[i].task.id, []).append(i)
    for idx in by_task.values():
        task = envs[idx[0]].task
        for i, s in zip(idx, envs[idx[0]].core.score(task, [cands[i] for i in idx])):
            scored[i] = s
    return [env.record(None if isinstance(c, Scored) else c, s) for env, c, s in zip(envs, cands, scored)]
