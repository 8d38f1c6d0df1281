"""Policies that write candidates for `rl.env` episodes.

- `rl.policy.transform.TransformPolicy`: the built-in policy; moves between a family's known
  variants by source transformations, a small torch network trained with GRPO (CPU is enough).
- `rl.policy.llm.LLMPolicy`: a chat model behind an OpenAI-compatible endpoint; it writes CUDA
  source with a `// launch:` line (`rl.submission`), reads each turn's feedback, writes again.

Submodules load on first use (`from rl.policy import LLMPolicy` does not import torch).
"""
from __future__ import annotations

import importlib
from typing import Any

__all__ = ["LLMPolicy", "LLMError", "TransformPolicy"]

_WHERE = {"LLMPolicy": "llm", "LLMError": "llm", "TransformPolicy": "transform"}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
