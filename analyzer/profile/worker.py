"""The GPU worker: a persistent, spawned process that runs samples one at a time.

The parent talks to it through a pipe and enforces the timeouts: a hang is
killed, a dead context or a dead process is replaced by a fresh worker, and
in every case only the sample at hand is lost.
"""
from __future__ import annotations

import multiprocessing as mp
import time
from dataclasses import dataclass
from typing import Any

from .records import Job
from .runner import Timing


@dataclass(frozen=True)
class RunRequest:
    job: Job
    cubin_path: str
    lowered: str
    problem_dir: str
    timing: Timing


class WorkerUnavailable(RuntimeError):
    """The worker could not start at all (no GPU, no driver): fatal for the run."""


def worker_main(conn: Any, cache_dir: str | None) -> None:
    """Entry point of the spawned process."""
    try:
        from .runner import Device

        device = Device(with_check=True, cache_dir=cache_dir)
    except BaseException as exc:  # noqa: BLE001 - anything here means no usable GPU
        conn.send(("fatal", f"{type(exc).__name__}: {exc}".splitlines()[0]))
        return
    conn.send(("ready", device.info))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg[0] == "stop":
            return
        req: RunRequest = msg[1]
        result = device.run(req.job, req.cubin_path, req.lowered, req.problem_dir, req.timing,
                            started=lambda: conn.send(("started",)))
        conn.send(("done", result))
        if result.get("context_dead"):
            return  # the parent starts a fresh worker


class GpuWorker:
    """Parent-side handle: start, run with timeouts, restart on death."""

    def __init__(self, cache_dir: str | None = None, start_timeout_s: float = 120.0) -> None:
        self.cache_dir = cache_dir
        self.start_timeout_s = start_timeout_s
        self.proc: Any = None
        self.conn: Any = None
        self.info: dict[str, Any] = {}
        self.restarts = 0

    def start(self) -> dict[str, Any]:
        ctx = mp.get_context("spawn")  # never fork a process that may hold CUDA state
        parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=worker_main, args=(child, self.cache_dir), daemon=True, name="cudaperf-gpu")
        self.proc.start()
        child.close()
        self.conn = parent
        if not parent.poll(self.start_timeout_s):
            self.kill()
            raise WorkerUnavailable(f"GPU worker did not start within {self.start_timeout_s:.0f} s")
        try:
            kind, payload = parent.recv()
        except EOFError:
            self.kill()
            raise WorkerUnavailable("GPU worker died while starting") from None
        if kind != "ready":
            self.kill()
            raise WorkerUnavailable(f"no usable GPU: {payload}")
        self.info = payload
        return payload

    def kill(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            self.proc.kill()
            self.proc.join(10)
        if self.conn is not None:
            self.conn.close()
        self.proc = self.conn = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.is_alive():
            try:
                self.conn.send(("stop",))
                self.proc.join(10)
            except (OSError, BrokenPipeError):
                pass
        self.kill()

    def _restart(self) -> None:
        self.kill()
        self.restarts += 1
        self.start()

    def run(self, req: RunRequest, prepare_timeout_s: float, timeout_s: float) -> dict[str, Any]:
        """One sample. A timeout kills the worker; a dead worker is restarted before returning."""
        if self.proc is None or not self.proc.is_alive():
            self._restart()
        t0 = time.perf_counter()
        try:
            self.conn.send(("run", req))
            # phase 1: problem upload and buffer set-up (may be slow for a new size)
            if not self.conn.poll(prepare_timeout_s):
                self._restart()
                return {"status": "timeout", "message": f"set-up took over {prepare_timeout_s:.0f} s", "run_s": time.perf_counter() - t0}
            msg = self.conn.recv()
            if msg[0] == "started":
                # phase 2: the kernel itself (check launch, warm-up, timed reps)
                if not self.conn.poll(timeout_s):
                    self._restart()
                    return {"status": "timeout", "message": f"no result within {timeout_s:.0f} s (hang?); worker killed",
                            "run_s": time.perf_counter() - t0}
                msg = self.conn.recv()
            result = msg[1]
        except (EOFError, OSError, BrokenPipeError):
            code = self.proc.exitcode if self.proc is not None else None
            self._restart()
            return {"status": "crash", "message": f"GPU worker died (exit code {code})", "run_s": time.perf_counter() - t0}
        if result.get("context_dead"):
            self._restart()
        return result
