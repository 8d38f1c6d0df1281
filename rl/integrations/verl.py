"""verl: a custom reward function (`reward.custom_reward_function`), and the rows of its dataset.

verl (checked against verl 0.9.1: `verl.trainer.ppo.reward.get_custom_reward_fn` and the reward
loop's `NaiveRewardManager.run_single`) loads the function named in the config and calls it once
per response, with keywords, from a thread pool:

    compute_score(data_source=..., solution_str=..., ground_truth=..., extra_info=...,
                  **reward_kwargs)

where `ground_truth` is the row's `reward_model.ground_truth` and `reward_kwargs` come from
`reward.custom_reward_function.reward_kwargs`. It accepts a float or a dict with "score" plus
extra keys; the extra keys are logged per response and must be the same for every response,
so every answer here has the same keys.

Config (either form loads this module):

    reward.custom_reward_function.path=pkg://rl.integrations.verl
    reward.custom_reward_function.name=compute_score

Rows whose data_source is not ours go to verl's own default scorer, so one run can mix datasets.
"""
from __future__ import annotations

from typing import Any, Iterable

from rl.integrations import DATA_SOURCE, prompt_messages, score_replies

__all__ = ["compute_score", "verl_rows"]


def compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: dict | None = None, *,
                  core=None, **kwargs: Any) -> dict[str, Any] | float:
    """The reward of one response. ground_truth: the task id (extra_info["task_id"] also works).
    core: a reward core of your own (default: the shared one, or CUDAPERF_REWARD_URL's server)."""
    if data_source is not None and not str(data_source).startswith(DATA_SOURCE):
        from verl.utils.reward_score import default_compute_score  # only reached inside a verl run

        return default_compute_score(data_source, solution_str, ground_truth, extra_info, **kwargs)
    task_id = ground_truth or (extra_info or {}).get("task_id") or ""
    r = score_replies([str(task_id)], [solution_str or ""], core=core)[0]
    return {
        "score": float(r["reward"]),
        "valid": 0.0 if r.get("error") else 1.0,
        "measured": 1.0 if r.get("source") == "measured" else 0.0,
        "speedup": r.get("speedup"),
        "error": r.get("error") or "",
    }


def verl_rows(task_ids: Iterable[str] | None = None, *, split: str = "train",
              system: str | None = None) -> list[dict[str, Any]]:
    """Rows of a verl RL dataset (write them with `pandas.DataFrame(rows).to_parquet(path)`):
    data_source "cudaperf", the task prompt as chat messages, reward_model.ground_truth = task id."""
    from rl.tasks import family_tasks

    ids = list(task_ids) if task_ids is not None else sorted(family_tasks())
    return [{
        "data_source": DATA_SOURCE,
        "prompt": prompt_messages(tid, system),
        "ability": "cuda",
        "reward_model": {"style": "rule", "ground_truth": tid},
        "extra_info": {"split": split, "index": i, "task_id": tid},
    } for i, tid in enumerate(ids)]
