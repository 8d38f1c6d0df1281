"""TRL: a `GRPOTrainer` reward function, and the prompt dataset it expects.

TRL (checked against trl 1.16.0, `GRPOTrainer._calculate_rewards`) calls each custom reward
function once per generation batch, with keywords only:

    reward_func(prompts=..., completions=..., completion_ids=..., <every other dataset column>=...,
                trainer_state=..., log_extra=..., log_metric=...)

`completions` are strings (standard datasets) or conversations, `[{"role": "assistant",
"content": ...}]` (conversational datasets). It wants one float per completion back; None means
"not applicable to this row" (TRL turns it into NaN and leaves the row to other reward functions).

Our dataset rows carry a `task_id` column, so the reward function receives `task_id=[...]`, one
per completion. Use:

    from rl.integrations.trl import cudaperf_reward, trl_dataset
    dataset = datasets.Dataset.from_list(trl_dataset(["transpose/r4K_c4K", "reduction/n32M"]))
    trainer = GRPOTrainer(model=..., reward_funcs=[cudaperf_reward], train_dataset=dataset, ...)
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from rl.integrations import prompt_messages, reply_text, score_replies

__all__ = ["cudaperf_reward", "make_trl_reward", "TRLReward", "trl_dataset"]


class TRLReward:
    """A reward function object for `GRPOTrainer(reward_funcs=[...])`.

    core: the reward core to use (default: the shared one, or the server at CUDAPERF_REWARD_URL).
    log: called after each batch with the result dicts (`Scored.to_dict()`) of the scored rows.
    Also fills TRL's completions table (`log_extra`: source, speedup, error) and logs the share of
    valid and of measured replies (`log_metric`) when the trainer passes those callbacks.
    """

    def __init__(self, core=None, log: Callable[[list[dict[str, Any]]], None] | None = None,
                 name: str = "cudaperf_reward") -> None:
        self.core = core
        self.log = log
        self.__name__ = name    # TRL names the reward's metrics after this

    def __call__(self, prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None,
                 task_id: Sequence[str | None] | None = None, **kwargs: Any) -> list[float | None]:
        if completions is None:
            raise TypeError("cudaperf_reward needs completions=[...] (as GRPOTrainer passes them)")
        if task_id is None:
            raise ValueError("cudaperf_reward needs a 'task_id' column in the training dataset (see trl_dataset)")
        if len(task_id) != len(completions):
            raise ValueError(f"{len(task_id)} task ids for {len(completions)} completions")
        mine = [i for i, t in enumerate(task_id) if t]      # rows without a task belong to other rewards
        results = score_replies([str(task_id[i]) for i in mine], [reply_text(completions[i]) for i in mine],
                                core=self.core)
        rewards: list[float | None] = [None] * len(completions)
        by_row: dict[int, dict[str, Any]] = {}
        for i, r in zip(mine, results):
            rewards[i] = float(r["reward"])
            by_row[i] = r
        self._report(len(completions), by_row, kwargs)
        if self.log is not None and results:
            self.log(results)
        return rewards

    @staticmethod
    def _report(n: int, by_row: dict[int, dict[str, Any]], kwargs: dict[str, Any]) -> None:
        log_extra, log_metric = kwargs.get("log_extra"), kwargs.get("log_metric")
        if callable(log_extra):
            for column, key in (("cudaperf_source", "source"), ("cudaperf_speedup", "speedup"),
                                ("cudaperf_error", "error")):
                log_extra(column, [by_row[i].get(key) if i in by_row else None for i in range(n)])
        if callable(log_metric) and by_row:
            results = by_row.values()
            log_metric("cudaperf/valid_share", sum(not r.get("error") for r in results) / len(by_row))
            log_metric("cudaperf/measured_share", sum(r.get("source") == "measured" for r in results) / len(by_row))


_shared = TRLReward()


def cudaperf_reward(prompts: Sequence[Any] | None = None, completions: Sequence[Any] | None = None,
                    task_id: Sequence[str | None] | None = None, **kwargs: Any) -> list[float | None]:
    """The GRPOTrainer reward function on the shared core (a module-level function, so it pickles)."""
    return _shared(prompts=prompts, completions=completions, task_id=task_id, **kwargs)


def make_trl_reward(core=None, log: Callable[[list[dict[str, Any]]], None] | None = None,
                    name: str = "cudaperf_reward") -> TRLReward:
    """A reward function on a core of your own, with an optional per-batch log callback."""
    return TRLReward(core=core, log=log, name=name)


def trl_dataset(task_ids: Iterable[str] | None = None, *, system: str | None = None,
                conversational: bool = True) -> list[dict[str, Any]]:
    """Rows for `datasets.Dataset.from_list`: a "prompt" (the task prompt as the user message, or
    the plain prompt text with conversational=False) and the "task_id" column the reward reads.
    Default: every family task."""
    from rl.tasks import family_tasks

    ids = list(task_ids) if task_ids is not None else sorted(family_tasks())
    rows = []
    for tid in ids:
        msgs = prompt_messages(tid, system)
        prompt: Any = msgs if conversational else "\n\n".join(m["content"] for m in msgs)
        rows.append({"prompt": prompt, "task_id": tid})
    return rows
