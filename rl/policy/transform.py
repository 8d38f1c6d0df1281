"""The built-in policy: source transformations over a family's parameters, scored by a small network.

From the current kernel, the actions are the task's candidates one transformation away
(`rl.tasks.neighbours`: change the tile or block shape, pad the shared array, vectorize, switch
the reduction or softmax strategy, ...) plus keeping the current kernel. Every action lands on
a real variant of the family grid, so on a CPU with `rl.oracle.Replay` each real query has a
real answer; `allowed` restricts the moves to what an oracle can answer.

The network sees each action through the analyzer's features of the kernel it leads to,
standardized within the task (so "fewer sectors per request than the other variants" means the
same on every task), their change from the current kernel, the turn, and the current kernel's
reward terms. One logit per action; a softmax over them is the policy. Trained with
group-relative advantages (GRPO-style): several episodes per task, each turn's discounted
return minus the group's mean at that turn, over the group's standard deviation.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch
from torch import nn

from corpus.families.base import Sample

from ..core import RewardCore
from ..tasks import Task, neighbours

__all__ = ["TransformPolicy", "Encoder", "Choice"]

TERM_NAMES = ("speed", "coalescing", "banks", "occupancy", "spills")


@dataclass
class Choice:
    sample: Sample
    action: str
    logp: torch.Tensor
    entropy: torch.Tensor


class Encoder:
    """Per-task standardized analyzer features, cached per task and per sample."""

    def __init__(self, core: RewardCore, clip: float = 3.0) -> None:
        self.core = core
        self.clip = clip
        self._stats: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._rows: dict[tuple[str, str], np.ndarray] = {}

    @property
    def width(self) -> int:
        from rewardmodel.features import FEATURE_NAMES

        return len(FEATURE_NAMES)

    def _task_stats(self, task: Task) -> tuple[np.ndarray, np.ndarray]:
        st = self._stats.get(task.id)
        if st is None:
            xs = [self.core.static(s).x for s in task.candidates]
            X = np.vstack([x for x in xs if x is not None] or [np.zeros(self.width)])
            X = np.where(np.isfinite(X), X, np.nan)
            with warnings.catch_warnings():     # all-NaN columns (features a family never has) are expected
                warnings.simplefilter("ignore", RuntimeWarning)
                mu = np.nanmean(X, axis=0)
                sd = np.nanstd(X, axis=0)
            mu = np.where(np.isfinite(mu), mu, 0.0)
            sd = np.where(np.isfinite(sd) & (sd > 1e-9), sd, 1.0)
            st = self._stats[task.id] = (mu, sd)
        return st

    def row(self, task: Task, sample: Sample) -> np.ndarray:
        key = (task.id, sample.sample_id)
        r = self._rows.get(key)
        if r is None:
            mu, sd = self._task_stats(task)
            x = self.core.static(sample).x
            if x is None:
                r = np.zeros(self.width)
            else:
                r = np.clip(np.nan_to_num((x - mu) / sd, nan=0.0, posinf=0.0, neginf=0.0), -self.clip, self.clip)
            self._rows[key] = r
        return r


class TransformPolicy(nn.Module):
    def __init__(self, width: int, hidden: int = 64, seed: int = 0) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.width = width
        extra = 2 + len(TERM_NAMES)       # keep flag, turn fraction, current reward terms
        self.net = nn.Sequential(nn.Linear(2 * width + extra, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                 nn.Linear(hidden, 1))
        with torch.no_grad():             # start near uniform: the first steps explore
            self.net[-1].weight.mul_(0.01)
            self.net[-1].bias.zero_()

    def logits(self, cur: np.ndarray, nxt: np.ndarray, keep: np.ndarray, turn_frac: float,
               terms: np.ndarray) -> torch.Tensor:
        n = len(nxt)
        ctx = np.concatenate([np.full((n, 1), turn_frac), np.broadcast_to(terms, (n, len(terms)))], axis=1)
        x = np.concatenate([nxt, nxt - cur[None, :], keep[:, None], ctx], axis=1)
        return self.net(torch.as_tensor(x, dtype=torch.float32)).squeeze(-1)

    def act(self, task: Task, current: Sample, encoder: Encoder, turn: int, turns: int, last_terms: dict | None,
            rng: np.random.Generator, greedy: bool = False,
            allowed: Callable[[Sample], bool] | None = None) -> Choice:
        moves = [(a, s) for a, s in neighbours(task, current) if allowed is None or allowed(s)]
        if not moves:     # a variant with no one-step neighbour: any other variant of the task
            moves = [(f"variant={s.variant}", s) for s in task.candidates
                     if s.sample_id != current.sample_id and (allowed is None or allowed(s))]
        actions = [("keep", current)] + moves
        cur = encoder.row(task, current)
        nxt = np.vstack([encoder.row(task, s) for _, s in actions])
        keep = np.zeros(len(actions))
        keep[0] = 1.0
        terms = np.array([_term(last_terms, k) for k in TERM_NAMES])
        logits = self.logits(cur, nxt, keep, turn / max(1, turns), terms)
        logp_all = torch.log_softmax(logits, dim=0)
        if greedy:
            k = int(torch.argmax(logits))
        else:
            p = logp_all.detach().exp().numpy().astype(np.float64)
            k = int(rng.choice(len(actions), p=p / p.sum()))
        ent = -(logp_all.exp() * logp_all).sum()
        return Choice(actions[k][1], actions[k][0], logp_all[k], ent)


def _term(terms: dict | None, name: str) -> float:
    if not terms or name not in terms:
        return 0.0
    v = terms[name].get("value") if isinstance(terms[name], dict) else None
    return float(v) if v is not None and math.isfinite(v) else 0.0


def group_advantages(returns: Sequence[Sequence[float]]) -> np.ndarray:
    """returns[g][t] for the G episodes of one task -> advantages normalized per turn across the group."""
    R = np.asarray(returns, dtype=np.float64)
    mu = R.mean(axis=0, keepdims=True)
    sd = R.std(axis=0, keepdims=True)
    return (R - mu) / (sd + 1e-6)
