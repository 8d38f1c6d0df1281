"""Reward adapters for RL frameworks (TRL, verl, OpenRLHF): thin layers over one reward core.

Every adapter turns its framework's call into `(task ids, reply texts)`, asks `score_replies`
for one result dict per reply (`Scored.to_dict()`), and shapes the rewards the way its
framework wants them. Where the rewards come from, in this order:

1. a core passed to the adapter (`make_trl_reward(core=...)`, `score_replies(..., core=...)`);
2. a reward server, when `CUDAPERF_REWARD_URL` is set (`python -m rl serve`): every trainer
   process then shares one core, so a GPU oracle measures each candidate once and one GPU is
   not fought over by many reward workers;
3. this process's shared core, built on first use (`default_core()`), with the oracle named by
   `CUDAPERF_ORACLE`: "replay" (default: the measured corpus, needs no GPU), "gpu", "ray" or
   "none" (surrogate only).

Frameworks call reward functions from worker threads (verl's reward loop uses a thread pool,
OpenRLHF offloads to threads) and the core is not thread-safe, so every call into a core holds
that core's lock (`core_lock`).
"""
from __future__ import annotations

import os
import threading
import weakref
from typing import Any, Sequence

__all__ = ["ENV_ORACLE", "ENV_URL", "DATA_SOURCE", "default_core", "set_default_core", "core_lock",
           "score_replies", "reply_text", "prompt_messages"]

ENV_ORACLE = "CUDAPERF_ORACLE"
ENV_URL = "CUDAPERF_REWARD_URL"
DATA_SOURCE = "cudaperf"          # verl's data_source for our rows
_ORACLES = ("replay", "gpu", "ray", "none")

_default = None
_default_lock = threading.Lock()
_locks: "weakref.WeakKeyDictionary[Any, threading.Lock]" = weakref.WeakKeyDictionary()
_locks_guard = threading.Lock()


def oracle_from_env() -> str:
    name = os.environ.get(ENV_ORACLE, "replay").strip().lower() or "replay"
    if name not in _ORACLES:
        raise ValueError(f"{ENV_ORACLE}={name!r}: expected one of {', '.join(_ORACLES)}")
    return name


def default_core():
    """This process's shared reward core, built on first call (the shipped surrogate, the oracle
    named by CUDAPERF_ORACLE, the default scheduler). Later calls return the same core."""
    global _default
    with _default_lock:
        if _default is None:
            from rl.core import RewardCore

            _default = RewardCore.from_defaults(oracle_name=oracle_from_env())
        return _default


def set_default_core(core) -> None:
    """Make `core` the shared one (None: build from the environment again on next use)."""
    global _default
    with _default_lock:
        _default = core


def core_lock(core) -> threading.Lock:
    """The lock every caller of this core holds while scoring (one per core object)."""
    with _locks_guard:
        lock = _locks.get(core)
        if lock is None:
            lock = _locks[core] = threading.Lock()
        return lock


def score_replies(task_ids: Sequence[str], texts: Sequence[str], core=None) -> list[dict[str, Any]]:
    """One result dict per reply, in order (the keys of `Scored.to_dict()`: reward, error, source,
    speedup, time_ms, breakdown ...). A reply that does not parse, or names an unknown task, gets
    the fail reward and its error; only a broken core or an unreachable server raises."""
    if len(task_ids) != len(texts):
        raise ValueError(f"{len(task_ids)} task ids for {len(texts)} replies")
    if not texts:
        return []
    if core is None and os.environ.get(ENV_URL):
        return _score_remote(os.environ[ENV_URL], task_ids, texts)
    core = core if core is not None else default_core()
    with core_lock(core):
        scored = core.score_texts(list(task_ids), list(texts))
    return [s.to_dict() for s in scored]


def _score_remote(url: str, task_ids: Sequence[str], texts: Sequence[str]) -> list[dict[str, Any]]:
    import httpx

    endpoint = url.rstrip("/")
    if not endpoint.endswith("/score"):
        endpoint += "/score"
    body = {"items": [{"task_id": str(t), "text": x} for t, x in zip(task_ids, texts)]}
    timeout = float(os.environ.get("CUDAPERF_REWARD_TIMEOUT", "600"))
    try:
        resp = httpx.post(endpoint, json=body, timeout=timeout)
    except httpx.HTTPError as exc:
        raise RuntimeError(f"reward server {endpoint} unreachable: {type(exc).__name__}: {exc}") from None
    if resp.status_code != 200:
        try:
            msg = resp.json().get("error", resp.text)
        except ValueError:
            msg = resp.text
        raise RuntimeError(f"reward server {endpoint} answered {resp.status_code}: {msg}")
    results = resp.json().get("results")
    if not isinstance(results, list) or len(results) != len(texts):
        raise RuntimeError(f"reward server {endpoint} answered {len(results or [])} results for {len(texts)} replies")
    return results


def reply_text(completion: Any) -> str:
    """The reply's text from a framework's completion: a plain string, one message dict, or a
    conversation (a list of message dicts; the last assistant message with text wins). Message
    content may be a string or a list of content blocks ({"type": "text", "text": ...})."""
    if completion is None:
        return ""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return _content_text(completion.get("content"))
    if isinstance(completion, (list, tuple)):
        texts = [_content_text(m.get("content")) for m in completion
                 if isinstance(m, dict) and m.get("role", "assistant") == "assistant"]
        texts = [t for t in texts if t.strip()]
        return texts[-1] if texts else ""
    return str(completion)


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):   # content blocks (multimodal chat format)
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return str(content)


def prompt_messages(task_id: str, system: str | None = None) -> list[dict[str, str]]:
    """The chat messages that ask for a kernel for this task (an optional system message, then
    the task prompt as the user message)."""
    from rl.submission import task_prompt
    from rl.tasks import get

    msgs = [{"role": "system", "content": system}] if system else []
    return msgs + [{"role": "user", "content": task_prompt(get(task_id))}]
