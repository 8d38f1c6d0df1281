"""A fake OpenAI-compatible server for tests: real HTTP on 127.0.0.1, answers from a script.

    with FakeOpenAI(lambda messages: "```cuda\\n...\\n```") as srv:
        policy = LLMPolicy(srv.url, srv.model)
        ...
        srv.requests[-1].body["messages"]      # what the client sent

`POST /v1/chat/completions` answers with the JSON shape OpenAI uses (id, object
"chat.completion", created, model, choices[{index, message{role, content}, finish_reason}],
usage), one choice per `n` (the script is called once per choice) unless `honor_n=False`.
`GET /v1/models` lists the one model. Errors use OpenAI's {"error": {message, type, code}} body:
400 for a malformed request, 401 for a wrong key (when `api_key` is set), 404 for an unknown
model or path. `fail(...)` queues faults for the next chat requests, one per request:
500, 429 (with Retry-After: 0), 400, or ("slow", seconds) (sleep, then answer).
"""
from __future__ import annotations

import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

Script = Callable[[list[dict[str, Any]]], str]


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: Any = None


@dataclass
class FakeOpenAI:
    script: Script = field(default=lambda messages: "no kernel here")
    model: str = "fake-kernel-coder"
    api_key: str | None = None
    honor_n: bool = True
    requests: list[Received] = field(default_factory=list)
    _faults: list[Any] = field(default_factory=list, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _server: ThreadingHTTPServer | None = field(default=None, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)

    # -- life

    def start(self) -> "FakeOpenAI":
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:     # keep pytest output clean
                pass

            def do_GET(self) -> None:
                fake._handle(self, "GET")

            def do_POST(self) -> None:
                fake._handle(self, "POST")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True        # a slow answer must not hold up stop()
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "FakeOpenAI":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "start() the server first"
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        """The base URL a client is given (OpenAI style, ending in /v1)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def fail(self, *faults: Any) -> None:
        """Queue faults for the next chat requests: 500, 429, 400 or ("slow", seconds)."""
        with self._lock:
            self._faults.extend(faults)

    @property
    def chat_requests(self) -> list[Received]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # -- answers

    def _handle(self, h: BaseHTTPRequestHandler, method: str) -> None:
        body: Any = None
        if method == "POST":
            raw = h.rfile.read(int(h.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw or b"null")
            except ValueError:
                body = raw.decode("utf-8", "replace")
        with self._lock:
            self.requests.append(Received(method, h.path, {k.lower(): v for k, v in h.headers.items()}, body))
        try:
            self._answer(h, method, body)
        except (BrokenPipeError, ConnectionResetError):     # the client gave up (timeout tests)
            pass

    def _send(self, h: BaseHTTPRequestHandler, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        out = json.dumps(data).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(out)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(out)

    def _error(self, h: BaseHTTPRequestHandler, status: int, message: str, kind: str, code: str | None = None,
               headers: dict[str, str] | None = None) -> None:
        self._send(h, status, {"error": {"message": message, "type": kind, "param": None, "code": code}}, headers)

    def _answer(self, h: BaseHTTPRequestHandler, method: str, body: Any) -> None:
        if self.api_key is not None and h.headers.get("Authorization") != f"Bearer {self.api_key}":
            return self._error(h, 401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
        path = h.path.split("?")[0].rstrip("/")
        if method == "GET" and path == "/v1/models":
            return self._send(h, 200, {"object": "list", "data": [
                {"id": self.model, "object": "model", "created": 0, "owned_by": "cudaperf-tests"}]})
        if method != "POST" or path != "/v1/chat/completions":
            return self._error(h, 404, f"Unknown request URL: {method} {h.path}.", "invalid_request_error",
                               "unknown_url")
        with self._lock:
            fault = self._faults.pop(0) if self._faults else None
        if fault == 500:
            return self._error(h, 500, "The server had an error while processing your request.", "server_error")
        if fault == 429:
            return self._error(h, 429, "Rate limit reached, please try again.", "requests", "rate_limit_exceeded",
                               {"Retry-After": "0"})
        if fault == 400:
            return self._error(h, 400, "n must be 1 on this server.", "invalid_request_error")
        if isinstance(fault, tuple) and fault[0] == "slow":
            time.sleep(fault[1])
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body.get("model"):
            return self._error(h, 400, "'model' and 'messages' are required properties.", "invalid_request_error")
        if body["model"] != self.model:
            return self._error(h, 404, f"The model `{body['model']}` does not exist.", "invalid_request_error",
                               "model_not_found")
        n = int(body.get("n") or 1) if self.honor_n else 1
        texts = [self.script(body["messages"]) for _ in range(n)]
        prompt_words = sum(len(str(m.get("content", "")).split()) for m in body["messages"])
        done_words = sum(len(t.split()) for t in texts)
        self._send(h, 200, {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
            "model": self.model,
            "choices": [{"index": i, "message": {"role": "assistant", "content": t}, "logprobs": None,
                         "finish_reason": "stop"} for i, t in enumerate(texts)],
            # word counts stand in for token counts: nothing here tokenizes
            "usage": {"prompt_tokens": prompt_words, "completion_tokens": done_words,
                      "total_tokens": prompt_words + done_words},
        })
