"""Shared by the adapter and server tests: model replies made of real corpus candidates (a
replay oracle can answer them), and a fresh reward core to compare with."""
from __future__ import annotations

from rl.submission import launch_line
from rl.tasks import get as get_task

TASKS = ("transpose/r4K_c4K", "reduction/n32M")


def reply(task_id: str, k: int) -> str:
    c = get_task(task_id).candidates[k]
    return f"```cuda\n{launch_line(c)}\n{c.source}\n```"


def fresh_core(oracle: str = "replay"):
    from rl.core import RewardCore

    return RewardCore.from_defaults(oracle_name=oracle)
