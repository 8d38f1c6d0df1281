"""An LLM as the policy, through any OpenAI-compatible chat endpoint (vLLM, SGLang, TGI, llama.cpp
server, OpenAI, ...): the model reads the task prompt, writes a kernel, reads the feedback of its
last kernel, writes a better one.

    from rl.policy.llm import LLMPolicy
    policy = LLMPolicy("http://127.0.0.1:8000/v1", "Qwen/Qwen2.5-Coder-7B-Instruct")
    # or LLMPolicy.from_env(): CUDAPERF_LLM_URL, CUDAPERF_LLM_MODEL (empty: the server's only
    # model), OPENAI_API_KEY (optional)
    obs = env.reset(); history = []
    while not env.done:
        text = policy.propose(env.task, history, n=1)[0]
        obs, reward, done = env.step(text)
        history.append((text, obs))

`propose(task, history, n)` returns n reply texts (a GRPO group: one request with `n`, or n
requests where the server ignores `n`). `history` is the episode so far as (reply text,
observation) pairs, the observation being `rl.env`'s dict. The messages are: a system prompt
(role and reply format), the task prompt (`rl.submission.task_prompt`), then the last
`keep_turns` turns as assistant (the kernel, as a code block) and user (its feedback: compile
log, lint findings, time and whether it was measured or predicted, speedup, reward terms,
error) messages; older turns are one summary line each, so the context stays small.

The base URL may end in `/v1` or not (`/v1` is added). Requests are retried with exponential
backoff (honouring Retry-After) on 429, 5xx, timeouts and dropped connections; everything else
raises `LLMError` with one line that names the URL.
"""
from __future__ import annotations

import ipaddress
import os
import re
import time
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence
from urllib.parse import urlsplit

from ..submission import SubmissionError, extract_code, task_prompt
from ..tasks import Task

__all__ = ["LLMPolicy", "LLMError", "SYSTEM_PROMPT", "build_messages", "feedback"]

History = Sequence[tuple[str, Mapping[str, Any]]]

SYSTEM_PROMPT = (
    "You are an expert CUDA performance engineer. You write correct, fast CUDA kernels for NVIDIA GPUs. "
    "Every reply holds exactly one ```cuda code block with the complete kernel source, and inside it one "
    "comment line `// launch: kernel=NAME grid=(...) block=(...) smem=BYTES` that states how to launch it. "
    "After each kernel you get feedback: the compiler's output, lint findings, its time (measured on the GPU "
    "or predicted by a cost model) and its speedup over the baseline. Use it to write a faster kernel that "
    "still computes the same result."
)

_RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}
_MAX_FINDINGS = 12
_MAX_LOG = 1500


class LLMError(RuntimeError):
    """The endpoint could not give an answer; the message is one line and names the URL."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


# ------------------------------------------------------------------ messages (pure)

def _num(x: Any, fmt: str) -> str | None:
    try:
        return format(float(x), fmt) if x is not None else None
    except (TypeError, ValueError):
        return None


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    # keep the start: a compiler's first errors are the ones to fix
    return text if len(text) <= limit else text[:limit] + f"\n... ({len(text) - limit} more characters)"


def feedback(obs: Mapping[str, Any]) -> str:
    """What a kernel author wants to read about their last kernel, from an `rl.env` observation."""
    lines = [f"Feedback on your kernel (turn {obs.get('turn', '?')}):"]
    br = obs.get("breakdown") or {}
    error = obs.get("error") or ""
    if error:
        lines.append(f"Error: {error}")
    for name, g in (br.get("gates") or {}).items():
        if isinstance(g, Mapping) and g.get("passed") is False and str(g.get("detail", "")) not in error:
            lines.append(f"Failed check {name}: {g.get('detail', '')}")
    log = str(obs.get("compile_log") or "")
    if log and obs.get("source"):          # no source: the reply never became a kernel
        lines.append("Compiler: " + _clip(log, _MAX_LOG))
    findings = list(obs.get("findings") or [])
    if findings:
        lines.append(f"Lint findings ({len(findings)}):")
        lines += [f"  {f}" for f in findings[:_MAX_FINDINGS]]
        if len(findings) > _MAX_FINDINGS:
            lines.append(f"  ... and {len(findings) - _MAX_FINDINGS} more")
    t = _num(obs.get("time_ms"), ".4g")
    src = obs.get("time_source") or "none"
    if t is not None:
        how = {"measured": "measured on the GPU", "surrogate": "predicted by the cost model, not run"}.get(src, src)
        iv = obs.get("interval_ms")
        band = ""
        if src == "surrogate" and iv and len(iv) == 2 and None not in iv:
            band = f", likely {_num(iv[0], '.3g')}-{_num(iv[1], '.3g')} ms"
        lines.append(f"Time: {t} ms ({how}{band})")
    else:
        lines.append("Time: none (the kernel was not timed)")
    sp = _num(obs.get("speedup"), ".2f")
    if sp is not None:
        lines.append(f"Speedup: {sp}x over the baseline")
    terms = br.get("terms") or {}
    parts = []
    for name, term in terms.items():
        if not isinstance(term, Mapping) or term.get("value") is None:
            continue
        v = float(term["value"]) * float(term.get("weight", 1.0))
        why = f" ({term['why']})" if term.get("why") else ""
        parts.append(f"{name} {v:+.3f}{why}")
    r = _num(obs.get("reward"), ".3f")
    if r is not None:
        lines.append(f"Reward: {r}" + (" = " + "; ".join(parts) if parts and not error else ""))
    return "\n".join(lines)


def _summary(i: int, obs: Mapping[str, Any]) -> str:
    if obs.get("error"):
        err = " ".join(str(obs["error"]).split())
        return f"turn {obs.get('turn', i)}: failed ({err[:120]}{'...' if len(err) > 120 else ''})"
    sp = _num(obs.get("speedup"), ".2f")
    r = _num(obs.get("reward"), ".3f")
    src = obs.get("time_source") or "none"
    return f"turn {obs.get('turn', i)}: " + (f"{sp}x ({src})" if sp else "no time") + (f", reward {r}" if r else "")


def _as_code(text: str) -> str:
    """A past reply as the model should see it again: its code block only (reasoning dropped)."""
    try:
        return "```cuda\n" + extract_code(text).rstrip("\n") + "\n```"
    except SubmissionError:
        return _clip(text, 4000)


_ASK = ("Write an improved kernel: faster than your last one and the baseline, still correct. "
        "Reply with one ```cuda block that includes its // launch: line.")
_ASK_FIX = "Fix the problem and reply with one ```cuda block that includes its // launch: line."


def build_messages(task: Task, history: History = (), system: str = SYSTEM_PROMPT,
                   keep_turns: int = 1) -> list[dict[str, str]]:
    """The chat for the next turn of an episode: system, the task, the last `keep_turns` turns in
    full (kernel + feedback), older turns as one summary line each."""
    msgs = [{"role": "system", "content": system}] if system else []
    msgs.append({"role": "user", "content": task_prompt(task)})
    keep = max(1, keep_turns)
    old, recent = list(history[:-keep]), list(history[-keep:])
    for k, (text, obs) in enumerate(recent):
        msgs.append({"role": "assistant", "content": _as_code(text)})
        body = feedback(obs)
        if k == 0 and old:
            body = "Earlier turns: " + "; ".join(_summary(i + 1, o) for i, (_, o) in enumerate(old)) + "\n\n" + body
        if k == len(recent) - 1:
            body += "\n\n" + (_ASK_FIX if obs.get("error") else _ASK)
        msgs.append({"role": "user", "content": body})
    return msgs


# ------------------------------------------------------------------ the endpoint

def _is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _error_text(resp) -> str:
    """The server's own error message (OpenAI: {"error": {"message"}}, vLLM: {"message"})."""
    try:
        data = resp.json()
    except ValueError:
        data = None
    msg = ""
    if isinstance(data, Mapping):
        err = data.get("error")
        msg = err.get("message", "") if isinstance(err, Mapping) else (err if isinstance(err, str) else "")
        msg = msg or str(data.get("message") or data.get("detail") or "")
    msg = msg or resp.text or resp.reason_phrase
    return " ".join(str(msg).split())[:300]


def _content(message: Any) -> str:
    content = message.get("content") if isinstance(message, Mapping) else None
    if content is None:
        return ""
    if isinstance(content, list):           # content parts
        return "".join(p.get("text", "") if isinstance(p, Mapping) else str(p) for p in content)
    return str(content)


@dataclass
class LLMPolicy:
    """A chat model behind an OpenAI-compatible endpoint. No work in __init__: the HTTP client
    starts on the first request."""

    base_url: str
    model: str = ""                      # empty: the one model the server lists
    api_key: str | None = None
    temperature: float = 0.7
    max_tokens: int = 4096
    timeout_s: float = 60.0
    retries: int = 2
    backoff_s: float = 1.0               # first retry's wait; doubles on each later one
    system: str = SYSTEM_PROMPT
    keep_turns: int = 1
    _client: Any = field(default=None, init=False, repr=False)
    _n_ok: bool = field(default=True, init=False, repr=False)     # False once the server ignored `n`

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> "LLMPolicy":
        """From CUDAPERF_LLM_URL, CUDAPERF_LLM_MODEL and OPENAI_API_KEY (`env` defaults to os.environ)."""
        env = os.environ if env is None else env
        url = (env.get("CUDAPERF_LLM_URL") or "").strip()
        if not url:
            raise LLMError("CUDAPERF_LLM_URL is not set (e.g. http://127.0.0.1:8000/v1 for a local vLLM server)")
        kw: dict[str, Any] = {"model": (env.get("CUDAPERF_LLM_MODEL") or "").strip(),
                              "api_key": env.get("OPENAI_API_KEY") or None}
        kw.update(overrides)
        return cls(url, **kw)

    # -- plumbing

    def url(self, path: str) -> str:
        base = self.base_url.rstrip("/")
        if not re.search(r"/v\d+$", base):
            base += "/v1"
        return base + path

    def _http(self):
        if self._client is None:
            import httpx

            headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
            # a loopback server must not be sent through the environment's HTTP proxy
            self._client = httpx.Client(timeout=httpx.Timeout(self.timeout_s), headers=headers,
                                        trust_env=not _is_loopback(self.base_url))
        return self._client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> "LLMPolicy":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _request(self, method: str, path: str, body: dict | None = None) -> Any:
        import httpx

        url = self.url(path)
        last = ""
        for attempt in range(self.retries + 1):
            try:
                resp = self._http().request(method, url, json=body)
            except httpx.TimeoutException:
                last, wait = f"no answer within {self.timeout_s:g} s", self.backoff_s * 2 ** attempt
            except httpx.ConnectError as exc:
                why = "connection refused" if "refused" in str(exc).lower() else " ".join(str(exc).split())
                raise LLMError(f"cannot connect to {url} ({why}): is the server running?") from None
            except httpx.HTTPError as exc:          # dropped connection, bad framing: worth another try
                last, wait = f"{type(exc).__name__}: {' '.join(str(exc).split())}", self.backoff_s * 2 ** attempt
            else:
                if resp.status_code < 400:
                    try:
                        return resp.json()
                    except ValueError:
                        raise LLMError(f"{url}: the answer is not JSON: {resp.text[:120]!r}") from None
                msg = f"HTTP {resp.status_code}: {_error_text(resp)}"
                if resp.status_code not in _RETRY_STATUS:
                    raise LLMError(f"{url}: {msg}", resp.status_code)
                last, wait = msg, self.backoff_s * 2 ** attempt
                after = resp.headers.get("retry-after", "")
                if after.replace(".", "", 1).isdigit():
                    wait = min(float(after), 60.0)
            if attempt < self.retries:
                time.sleep(wait)
        raise LLMError(f"{url}: {last} (after {self.retries + 1} attempts)")

    def models(self) -> list[str]:
        """The model ids the server lists (GET /v1/models)."""
        data = self._request("GET", "/models")
        items = data.get("data") if isinstance(data, Mapping) else None
        if not isinstance(items, list):
            raise LLMError(f"{self.url('/models')}: not a model list")
        return [str(m.get("id")) for m in items if isinstance(m, Mapping) and m.get("id")]

    def _model(self) -> str:
        if not self.model:
            ids = self.models()
            if len(ids) != 1:
                raise LLMError(f"{self.url('/models')}: name a model, the server lists "
                               f"{', '.join(ids) if ids else 'none'}")
            self.model = ids[0]
        return self.model

    # -- the policy

    def complete(self, messages: Sequence[Mapping[str, str]], n: int = 1) -> list[str]:
        """n reply texts for one chat (the choices of one request, or several requests when the
        server answers fewer choices than asked for)."""
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        out: list[str] = []
        while len(out) < n:
            want = n - len(out) if self._n_ok else 1
            body = {"model": self._model(), "messages": list(messages), "temperature": self.temperature,
                    "max_tokens": self.max_tokens, "n": want}
            try:
                data = self._request("POST", "/chat/completions", body)
            except LLMError as exc:
                if want > 1 and exc.status == 400:    # some servers refuse n > 1: ask one at a time
                    self._n_ok = False
                    continue
                raise
            choices = data.get("choices") if isinstance(data, Mapping) else None
            if not isinstance(choices, list) or not choices:
                raise LLMError(f"{self.url('/chat/completions')}: not a chat completion (no choices): "
                               f"{str(data)[:120]}")
            choices = sorted(choices, key=lambda c: c.get("index", 0) if isinstance(c, Mapping) else 0)
            got = [_content(c.get("message") if isinstance(c, Mapping) else None) for c in choices]
            if len(got) < want:
                self._n_ok = False
            out += got[:want]
        return out

    def messages(self, task: Task, history: History = ()) -> list[dict[str, str]]:
        return build_messages(task, history, self.system, self.keep_turns)

    def propose(self, task: Task, history: History = (), n: int = 1) -> list[str]:
        """n candidate replies for the next turn of an episode on `task`."""
        return self.complete(self.messages(task, history), n)
