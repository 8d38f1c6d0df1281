"""OpenRLHF: the remote reward protocol (`--reward.remote_url`), as a pure mapping and as a file.

OpenRLHF (checked against openrlhf 0.11.2: `openrlhf.utils.agent.SingleTurnAgentExecutor`)
scores each rollout through `--reward.remote_url`, in one of two ways:

- an HTTP URL: it POSTs `{"query": [...], "prompts": [...], "labels": [...]}` (one rollout per
  request, several URLs may be given comma-separated) and reads back a JSON object with
  "rewards", optionally "scores" (defaults to "rewards") and "extra_logs" (numbers only: it
  makes tensors of them). Our server answers at POST /get_reward (`python -m rl serve`).
- a path to a .py file: it loads the file on its own (not as part of a package) and calls its
  `reward_func(queries, prompts, labels)` from a worker thread, expecting the same object back.
  This file is such a file: `--reward.remote_url /path/to/rl/integrations/openrlhf.py`.

Each query is the decoded prompt plus response, special tokens kept; the label is the row's
`--data.label_key` column, which must hold the task id. The reply is what follows the prompt.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Sequence

# absolute imports: OpenRLHF execs this file as a standalone module named "reward_func"
from rl.integrations import prompt_messages, score_replies

__all__ = ["PayloadError", "parse_request", "build_response", "get_reward", "reward_func", "reply_from_query",
           "openrlhf_rows"]


# end-of-turn tokens a chat template leaves after the reply (<|im_end|>, <|eot_id|>, </s>, <eos>,
# <end_of_turn>, DeepSeek's full-width bars): the query is decoded with special tokens kept, and a
# closing ``` followed by one on the same line would not close the code block
_TRAILING_SPECIAL = re.compile(r"(?:\s*(?:<\|[^<>|\s]{1,40}\|>|<｜[^<>｜]{1,40}｜>|</s>|<eos>|<end_of_turn>))+\s*\Z")


class PayloadError(ValueError):
    """A request body that is not OpenRLHF's reward request (the server answers 422 with it)."""


def reply_from_query(query: str, prompt: str | None) -> str:
    """The model's reply inside a query (prompt + response): the text after the prompt, without
    the end-of-turn tokens after it. When the prompt does not appear verbatim (a tokenizer that
    does not round-trip), the whole query."""
    reply = query
    if prompt:
        at = query.find(prompt)
        if at >= 0:
            reply = query[at + len(prompt):]
    return _TRAILING_SPECIAL.sub("", reply)


def _str_list(payload: dict[str, Any], key: str, n: int | None) -> list[str] | None:
    value = payload.get(key)
    if value is None:
        return None
    if isinstance(value, str):              # a single query sent bare
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise PayloadError(f"'{key}' must be a list of strings")
    if n is not None and len(value) != n:
        raise PayloadError(f"'{key}' has {len(value)} entries for {n} queries")
    return value


def parse_request(payload: Any) -> tuple[list[str], list[str]]:
    """(task ids, reply texts) from an OpenRLHF reward request body."""
    if not isinstance(payload, dict):
        raise PayloadError("the body must be a JSON object with 'query', 'prompts' and 'labels'")
    queries = _str_list(payload, "query", None)
    if queries is None:
        raise PayloadError("missing 'query' (a list of prompt+response strings)")
    labels = _str_list(payload, "labels", len(queries))
    if labels is None:
        raise PayloadError("missing 'labels' (the task id of each query: set --data.label_key)")
    prompts = _str_list(payload, "prompts", len(queries)) or [""] * len(queries)
    return labels, [reply_from_query(q, p) for q, p in zip(queries, prompts)]


def build_response(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """OpenRLHF's reward answer from our result dicts (extra_logs: numbers only)."""
    rewards = [float(r["reward"]) for r in results]
    return {
        "rewards": rewards,
        "scores": rewards,
        "extra_logs": {
            "cudaperf_valid": [0.0 if r.get("error") else 1.0 for r in results],
            "cudaperf_measured": [1.0 if r.get("source") == "measured" else 0.0 for r in results],
        },
    }


def get_reward(payload: Any, score: Callable[[list[str], list[str]], list[dict[str, Any]]] | None = None,
               core=None) -> dict[str, Any]:
    """Request body -> response body. score: (task ids, texts) -> result dicts (default: score_replies)."""
    task_ids, texts = parse_request(payload)
    results = score(task_ids, texts) if score is not None else score_replies(task_ids, texts, core=core)
    return build_response(results)


def reward_func(queries: list[str], prompts: list[str], labels: list[str]) -> dict[str, Any]:
    """OpenRLHF's custom-function mode: the same answer as POST /get_reward, on the shared core."""
    return get_reward({"query": list(queries), "prompts": list(prompts), "labels": list(labels)})


def openrlhf_rows(task_ids: Sequence[str] | None = None, *, system: str | None = None) -> list[dict[str, Any]]:
    """JSONL rows for OpenRLHF: "prompt" (chat messages: use --data.input_key prompt
    --data.apply_chat_template) and "label" (the task id: --data.label_key label)."""
    from rl.tasks import family_tasks

    ids = list(task_ids) if task_ids is not None else sorted(family_tasks())
    return [{"prompt": prompt_messages(tid, system), "label": tid} for tid in ids]
