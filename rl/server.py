"""The reward as an HTTP service on loopback: `python -m rl serve`.

Routes (all answers are JSON except /metrics):
- POST /score       {"items": [{"task_id": ..., "text": ...}, ...]} -> {"results": [Scored.to_dict(), ...]},
                    in request order; a reply that does not parse or names an unknown task is a
                    result with the fail reward and its "error", not an HTTP error.
- POST /get_reward  OpenRLHF's remote reward protocol (see rl.integrations.openrlhf).
- GET  /health      {"status": "ok", ...}
- GET  /metrics     Prometheus text: requests, replies, errors, latency, batches, core stats.

One reward core serves every request. It is not thread-safe, so a single batcher feeds it: the
requests that arrive while a batch is being scored are merged into the next `score_texts` call
(one surrogate call, one scheduling decision for all of them), which runs on one worker thread
so the event loop keeps answering /health and /metrics.

Limits, each answered with a JSON {"error": ...}: a body over `max_body_bytes` (413), more than
`max_items` replies (413), malformed JSON (400), a body of the wrong shape (422), no free slot
among `max_concurrent` within `queue_timeout_s` (503), no answer within `request_timeout_s`
(504; the batch it was in still finishes, and its real answers are kept by the core).
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import uvicorn
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from rl.integrations import core_lock
from rl.integrations.openrlhf import PayloadError, build_response, parse_request

__all__ = ["ServerConfig", "make_app", "serve", "add_arguments", "run", "main"]

LOOPBACK = ("127.0.0.1", "localhost", "::1")
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)


@dataclass(frozen=True)
class ServerConfig:
    max_concurrent: int = 64            # requests read and scored at once; the rest wait for a slot
    queue_timeout_s: float = 30.0       # how long a request waits for a slot before 503
    request_timeout_s: float = 300.0    # reading the body plus scoring, before 504
    max_body_bytes: int = 16 << 20
    max_items: int = 1024               # replies in one request
    max_batch_items: int = 4096         # replies in one core call (requests are merged up to this)


class _Reject(Exception):
    def __init__(self, status: int, message: str, unread_body: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.unread_body = unread_body      # the rest of the body is still on the wire


# --------------------------------------------------------------------------- metrics
@dataclass
class Metrics:
    requests: dict[tuple[str, int], int] = field(default_factory=dict)
    items: int = 0
    item_errors: int = 0
    batches: int = 0
    batch_items: int = 0
    inflight: int = 0
    waiting: int = 0
    latency: dict[str, list[int]] = field(default_factory=dict)     # route -> count per bucket (+Inf last)
    latency_sum: dict[str, float] = field(default_factory=dict)
    core: dict[str, float] = field(default_factory=dict)            # snapshot taken after each batch

    def observe(self, route: str, status: int, seconds: float) -> None:
        self.requests[(route, status)] = self.requests.get((route, status), 0) + 1
        counts = self.latency.setdefault(route, [0] * (len(_LATENCY_BUCKETS) + 1))
        for i, le in enumerate(_LATENCY_BUCKETS):
            if seconds <= le:
                counts[i] += 1
        counts[-1] += 1
        self.latency_sum[route] = self.latency_sum.get(route, 0.0) + seconds

    def render(self) -> str:
        out: list[str] = []

        def metric(name: str, kind: str, help_: str, rows: list[tuple[str, float]]) -> None:
            out.append(f"# HELP {name} {help_}")
            out.append(f"# TYPE {name} {kind}")
            out.extend(f"{name}{labels} {_num(v)}" for labels, v in rows)

        metric("cudaperf_requests_total", "counter", "HTTP requests answered, by route and status code.",
               [(f'{{route="{r}",code="{c}"}}', n) for (r, c), n in sorted(self.requests.items())])
        metric("cudaperf_items_total", "counter", "Replies scored.", [("", self.items)])
        metric("cudaperf_item_errors_total", "counter", "Replies that scored the fail reward with an error.",
               [("", self.item_errors)])
        metric("cudaperf_batches_total", "counter", "Calls into the reward core.", [("", self.batches)])
        metric("cudaperf_batch_items_total", "counter", "Replies sent to the reward core, summed over calls.",
               [("", self.batch_items)])
        metric("cudaperf_inflight_requests", "gauge", "Requests holding a slot.", [("", self.inflight)])
        metric("cudaperf_waiting_requests", "gauge", "Requests waiting for a slot.", [("", self.waiting)])
        out.append("# HELP cudaperf_request_seconds Request latency, by route.")
        out.append("# TYPE cudaperf_request_seconds histogram")
        for route, counts in sorted(self.latency.items()):
            for le, n in zip([*map(str, _LATENCY_BUCKETS), "+Inf"], counts):
                out.append(f'cudaperf_request_seconds_bucket{{route="{route}",le="{le}"}} {n}')
            out.append(f'cudaperf_request_seconds_sum{{route="{route}"}} {_num(self.latency_sum[route])}')
            out.append(f'cudaperf_request_seconds_count{{route="{route}"}} {counts[-1]}')
        c = self.core
        metric("cudaperf_core_scored_total", "counter", "Candidates the core scored.", [("", c.get("scored", 0))])
        metric("cudaperf_core_real_total", "counter", "New real answers (measurements) the oracle gave.",
               [("", c.get("real", 0))])
        metric("cudaperf_core_reused_total", "counter", "Candidates answered from an earlier real answer.",
               [("", c.get("reused", 0))])
        metric("cudaperf_core_real_share", "gauge", "New real answers per scored candidate.",
               [("", c.get("real_share", 0.0))])
        metric("cudaperf_core_gpu_seconds_total", "counter", "Recorded GPU-machine seconds of the real answers.",
               [("", c.get("gpu_s", 0.0))])
        metric("cudaperf_core_saved_seconds", "gauge",
               "GPU-machine seconds the surrogate saved (distinct candidates without a real run x mean real cost).",
               [("", c.get("saved_s", 0.0))])
        return "\n".join(out) + "\n"


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def _core_snapshot(core) -> dict[str, float]:
    s = core.stats
    saved = core.saved_s() if hasattr(core, "saved_s") else 0.0
    return {"scored": s.scored, "real": s.real, "reused": s.reused, "gpu_s": s.gpu_s,
            "real_share": s.real / s.scored if s.scored else 0.0, "saved_s": saved}


# --------------------------------------------------------------------------- batching
@dataclass
class _Job:
    task_ids: list[str]
    texts: list[str]
    future: asyncio.Future


class Batcher:
    """Merges concurrent requests into one core call at a time, on one worker thread."""

    def __init__(self, core, metrics: Metrics, max_batch_items: int) -> None:
        self.core = core
        self.metrics = metrics
        self.max_batch_items = max_batch_items
        self._queue: asyncio.Queue[_Job] = asyncio.Queue()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cudaperf-core")
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self.metrics.core = self._run_locked(_core_snapshot)
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._pool.shutdown(wait=True)

    @property
    def pending(self) -> int:
        return self._queue.qsize()

    async def submit(self, task_ids: list[str], texts: list[str]) -> asyncio.Future:
        job = _Job(task_ids, texts, asyncio.get_running_loop().create_future())
        await self._queue.put(job)
        return job.future

    async def _loop(self) -> None:
        loop = asyncio.get_running_loop()
        carry: _Job | None = None       # a job that did not fit in the last batch goes first next time
        while True:
            batch = [carry if carry is not None else await self._queue.get()]
            carry = None
            size = len(batch[0].texts)
            while not self._queue.empty():
                job = self._queue.get_nowait()
                if size + len(job.texts) > self.max_batch_items:
                    carry = job
                    break
                batch.append(job)
                size += len(job.texts)
            batch = [j for j in batch if not j.future.done()]      # timed out while queued
            if not batch:
                continue
            outcomes = await loop.run_in_executor(self._pool, self._score, batch)
            for job, outcome in zip(batch, outcomes):
                if job.future.done():
                    continue
                if isinstance(outcome, BaseException):
                    job.future.set_exception(outcome)
                else:
                    job.future.set_result(outcome)

    def _run_locked(self, fn: Callable[[Any], Any]) -> Any:
        with core_lock(self.core):
            return fn(self.core)

    def _score(self, batch: Sequence[_Job]) -> list[list[dict[str, Any]] | BaseException]:
        """Runs on the worker thread: one core call for the batch; if it fails, each request on
        its own, so a request that breaks the core fails alone."""
        task_ids = [t for j in batch for t in j.task_ids]
        texts = [t for j in batch for t in j.texts]
        with core_lock(self.core):
            outcomes: list[list[dict[str, Any]] | BaseException] = []
            try:
                flat = [_finite(s.to_dict()) for s in self.core.score_texts(task_ids, texts)]
                at = 0
                for j in batch:
                    outcomes.append(flat[at:at + len(j.texts)])
                    at += len(j.texts)
                self.metrics.batches += 1
                self.metrics.batch_items += len(texts)
            except Exception:  # noqa: BLE001 - retried per request below, where the error is reported
                outcomes = []
                for j in batch:
                    try:
                        outcomes.append([_finite(s.to_dict()) for s in self.core.score_texts(j.task_ids, j.texts)])
                        self.metrics.batches += 1
                        self.metrics.batch_items += len(j.texts)
                    except Exception as exc:  # noqa: BLE001
                        outcomes.append(RuntimeError(f"reward core failed: {type(exc).__name__}: {exc}"))
            self.metrics.core = _core_snapshot(self.core)
        return outcomes


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: such a number becomes null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


# --------------------------------------------------------------------------- request handling
def _score_items(payload: Any) -> tuple[list[str], list[str]]:
    if not isinstance(payload, dict):
        raise _Reject(422, 'the body must be a JSON object: {"items": [{"task_id": ..., "text": ...}, ...]}')
    items = payload.get("items")
    if items is None:
        raise _Reject(422, "missing 'items' (a list of {\"task_id\": ..., \"text\": ...})")
    if not isinstance(items, list):
        raise _Reject(422, "'items' must be a list")
    task_ids, texts = [], []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise _Reject(422, f"items[{i}] must be an object with 'task_id' and 'text'")
        for key in ("task_id", "text"):
            if key not in item:
                raise _Reject(422, f"items[{i}]: missing '{key}'")
            if not isinstance(item[key], str):
                raise _Reject(422, f"items[{i}].{key} must be a string")
        task_ids.append(item["task_id"])
        texts.append(item["text"])
    return task_ids, texts


def _openrlhf_items(payload: Any) -> tuple[list[str], list[str]]:
    try:
        return parse_request(payload)
    except PayloadError as exc:
        raise _Reject(422, str(exc)) from None


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            if int(declared) > limit:
                raise _Reject(413, f"body of {int(declared)} bytes is over the limit of {limit}", True)
        except ValueError:
            raise _Reject(400, "bad Content-Length header") from None
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _Reject(413, f"body is over the limit of {limit} bytes", True)
        chunks.append(chunk)
    return b"".join(chunks)


async def _drain(request: Request, cap: int) -> None:
    """Read and drop what is left of a refused body (up to cap bytes), so the client reads our
    answer instead of a reset connection. Raw ASGI receive: the body stream may be half read."""
    seen = 0
    with contextlib.suppress(Exception):
        while seen <= cap:
            message = await asyncio.wait_for(request.receive(), 5.0)
            if message["type"] != "http.request":
                break
            seen += len(message.get("body", b""))
            if not message.get("more_body", False):
                break


def make_app(core, config: ServerConfig | None = None, owns_core: bool = False) -> Starlette:
    """The Starlette app serving `core`. owns_core: close the core when the app shuts down."""
    cfg = config or ServerConfig()
    metrics = Metrics()
    state: dict[str, Any] = {}
    started = time.time()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        state["slots"] = asyncio.Semaphore(cfg.max_concurrent)
        state["batcher"] = batcher = Batcher(core, metrics, cfg.max_batch_items)
        batcher.start()
        try:
            yield
        finally:
            await batcher.stop()
            if owns_core:
                core.close()

    async def handle(request: Request, route: str, parse: Callable[[Any], tuple[list[str], list[str]]],
                     shape: Callable[[list[dict[str, Any]]], dict[str, Any]]) -> Response:
        t0 = time.perf_counter()
        slots: asyncio.Semaphore = state["slots"]
        try:
            try:
                metrics.waiting += 1
                try:
                    await asyncio.wait_for(slots.acquire(), cfg.queue_timeout_s)
                finally:
                    metrics.waiting -= 1
            except asyncio.TimeoutError:
                await _drain(request, cfg.max_body_bytes)
                raise _Reject(503, f"busy: no free slot within {cfg.queue_timeout_s:g} s, retry later") from None
            metrics.inflight += 1
            try:
                results = await asyncio.wait_for(_answer(request, parse), cfg.request_timeout_s)
            except asyncio.TimeoutError:
                raise _Reject(504, f"no answer within {cfg.request_timeout_s:g} s") from None
            finally:
                metrics.inflight -= 1
                slots.release()
            body, status = shape(results), 200
            metrics.items += len(results)
            metrics.item_errors += sum(bool(r.get("error")) for r in results)
        except _Reject as rej:
            if rej.unread_body:
                await _drain(request, 4 * cfg.max_body_bytes)
            body, status = {"error": rej.message}, rej.status
        except Exception as exc:  # noqa: BLE001 - the core failed: JSON 500, the server goes on
            body, status = {"error": str(exc) or type(exc).__name__}, 500
        metrics.observe(route, status, time.perf_counter() - t0)
        return JSONResponse(body, status_code=status)

    async def _answer(request: Request, parse) -> list[dict[str, Any]]:
        raw = await _read_body(request, cfg.max_body_bytes)
        try:
            payload = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise _Reject(400, f"malformed JSON: {exc}") from None
        task_ids, texts = parse(payload)
        if len(texts) > cfg.max_items:
            raise _Reject(413, f"{len(texts)} replies in one request; the limit is {cfg.max_items}")
        if not texts:
            return []
        future = await state["batcher"].submit(task_ids, texts)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            future.cancel()         # timed out: drop it if the batcher has not taken it yet
            raise

    async def score(request: Request) -> Response:
        return await handle(request, "score", _score_items, lambda rs: {"results": rs})

    async def get_reward(request: Request) -> Response:
        return await handle(request, "get_reward", _openrlhf_items, build_response)

    async def health(request: Request) -> Response:
        oracle = getattr(getattr(core, "oracle", None), "name", None) or "none"
        batcher = state.get("batcher")
        return JSONResponse({"status": "ok", "oracle": oracle, "uptime_s": round(time.time() - started, 3),
                             "inflight": metrics.inflight, "waiting": metrics.waiting,
                             "queued": batcher.pending if batcher else 0})

    async def metrics_route(request: Request) -> Response:
        return PlainTextResponse(metrics.render(), media_type="text/plain; version=0.0.4; charset=utf-8")

    async def http_error(request: Request, exc: HTTPException) -> Response:
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code, headers=getattr(exc, "headers", None))

    async def server_error(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": f"internal error: {type(exc).__name__}"}, status_code=500)

    app = Starlette(routes=[Route("/score", score, methods=["POST"]),
                            Route("/get_reward", get_reward, methods=["POST"]),
                            Route("/health", health, methods=["GET"]),
                            Route("/metrics", metrics_route, methods=["GET"])],
                    exception_handlers={HTTPException: http_error, Exception: server_error},
                    lifespan=lifespan)
    app.state.metrics = metrics
    app.state.config = cfg
    return app


# --------------------------------------------------------------------------- entry points
def serve(host: str = "127.0.0.1", port: int = 8000, core=None, oracle: str = "replay",
          config: ServerConfig | None = None, log_level: str = "warning") -> None:
    """Run the server until interrupted (builds the default core with `oracle` when none is given)."""
    owns = core is None
    if core is None:
        from rl.core import RewardCore

        core = RewardCore.from_defaults(oracle_name=oracle)
    uvicorn.run(make_app(core, config, owns_core=owns), host=host, port=port, log_level=log_level)


def add_arguments(p: argparse.ArgumentParser) -> None:
    d = ServerConfig()
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default loopback; there is no auth)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--oracle", choices=["replay", "gpu", "ray", "none"], default="replay",
                   help="real answers: measured corpus (replay), this GPU, a Ray pool, or none")
    p.add_argument("--max-concurrent", type=int, default=d.max_concurrent)
    p.add_argument("--queue-timeout", type=float, default=d.queue_timeout_s, help="seconds to wait for a slot")
    p.add_argument("--timeout", type=float, default=d.request_timeout_s, help="seconds per request")
    p.add_argument("--max-body-bytes", type=int, default=d.max_body_bytes)
    p.add_argument("--max-items", type=int, default=d.max_items, help="replies per request")
    p.add_argument("--max-batch-items", type=int, default=d.max_batch_items, help="replies per core call")
    p.add_argument("--log-level", default="warning", choices=["critical", "error", "warning", "info", "debug"])


def run(args: argparse.Namespace) -> int:
    for name in ("max_concurrent", "max_items", "max_batch_items", "max_body_bytes", "port"):
        if getattr(args, name) < (0 if name == "port" else 1):
            print(f"error: --{name.replace('_', '-')} must be positive", file=sys.stderr)
            return 2
    if args.queue_timeout <= 0 or args.timeout <= 0:
        print("error: --queue-timeout and --timeout must be positive", file=sys.stderr)
        return 2
    if args.max_batch_items < args.max_items:
        print("error: --max-batch-items must be at least --max-items", file=sys.stderr)
        return 2
    if args.host not in LOOPBACK:
        print(f"warning: binding {args.host}: the reward server has no authentication", file=sys.stderr)
    cfg = ServerConfig(max_concurrent=args.max_concurrent, queue_timeout_s=args.queue_timeout,
                       request_timeout_s=args.timeout, max_body_bytes=args.max_body_bytes,
                       max_items=args.max_items, max_batch_items=args.max_batch_items)
    try:
        from rl.core import RewardCore

        core = RewardCore.from_defaults(oracle_name=args.oracle)
    except (RuntimeError, ValueError, FileNotFoundError, ImportError) as exc:
        print(f"error: cannot build the reward core: {exc}", file=sys.stderr)
        return 2
    print(f"cudaperf reward server on http://{args.host}:{args.port} (oracle {args.oracle})", file=sys.stderr)
    uvicorn.run(make_app(core, cfg, owns_core=True), host=args.host, port=args.port, log_level=args.log_level)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m rl serve", description="the cudaperf reward as an HTTP service")
    add_arguments(p)
    return run(p.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
