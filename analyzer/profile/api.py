"""profile(jobs) -> Measurements: the builder, the problem cache, the GPU worker and ncu together.

Compilation and problem building run on CPU processes ahead of the GPU, which
takes one sample at a time. Jobs are grouped by problem so each size is built
and uploaded once.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from collections import OrderedDict
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
import multiprocessing as mp
from typing import Any, Collection, Iterable, Iterator

from . import build, counters as ncu_counters, problems, toolkit
from .provenance import provenance
from .records import Job, Measurement, one_line
from .runner import Timing, default_work_dir
from .worker import GpuWorker, RunRequest


@dataclass(frozen=True)
class Settings:
    arch: str | None = None            # None: the GPU's (nvidia-smi), else sm_90
    timing: Timing = Timing()
    timeout_s: float = 30.0            # per sample, from the first launch to the result
    prepare_timeout_s: float = 300.0   # per sample, upload of a new problem and set-up
    compile_workers: int | None = None  # default: all cores but two
    problem_workers: int = 6           # problems are built this many ahead of the GPU
    keep_problems: int = 24            # prepared problems kept on disk (re-measurements reuse them)
    cache_dir: str | None = None       # cubin cache (default ~/.cache/cudaperf/cubins)
    work_dir: str | None = None        # where prepared problems go (default $CUDAPERF_WORK or /tmp)
    ncu_timeout_s: float = 600.0


def group_by_problem(jobs: Iterable[Job]) -> "OrderedDict[str, list[Job]]":
    """Jobs by problem key, groups in first-seen order, jobs in given order."""
    groups: OrderedDict[str, list[Job]] = OrderedDict()
    for job in jobs:
        groups.setdefault(job.problem_key, []).append(job)
    return groups


def measurement_from(job: Job, built: build.BuildResult | None, result: dict[str, Any]) -> Measurement:
    """Fold a build result and a worker result into one Measurement."""
    fields = {k: v for k, v in result.items() if k in Measurement.__dataclass_fields__ and k not in ("job_id",)}
    m = Measurement(job_id=job.id, **fields)
    if built is not None:
        m.compile_s = built.compile_s
        m.cached = built.cached
        res = built.resources
        m.spill_stores = res.get("spill_stores", -1)
        m.spill_loads = res.get("spill_loads", -1)
        m.stack_bytes = res.get("stack_bytes", -1)
        if m.registers < 0:
            m.registers = res.get("registers", -1)
        if m.static_smem < 0:
            m.static_smem = res.get("static_smem", -1)
    return m


def compile_worker_setup() -> None:
    """A compile worker's environment. With a GPU driver, NVRTC answers a source the machine
    compiled before (in any process) from ~/.nv/ComputeCache with an empty ptxas log: no registers
    or spills for it (seen on an H100). The variable is read at a process's first compile, and these
    workers only compile."""
    os.environ["CUDA_CACHE_DISABLE"] = "1"


class Profiler:
    """Holds the CPU pools, the GPU worker and the caches across run() calls. Use as a context manager."""

    def __init__(self, settings: Settings = Settings(), log: Any = None) -> None:
        self.settings = settings
        self.log = log
        self.arch = settings.arch or toolkit.gpu_arch() or build.DEFAULT_ARCH
        self._compile_pool: ProcessPoolExecutor | None = None
        self._problem_pool: ProcessPoolExecutor | None = None
        self._worker: GpuWorker | None = None
        self._work = tempfile.mkdtemp(prefix="cudaperf-problems-", dir=settings.work_dir or default_work_dir())
        self._prepared: OrderedDict[str, Future] = OrderedDict()
        self._builds: dict[tuple[str, str], Future] = {}
        # seconds spent waiting on each stage, for the log and the benchmark
        self.waits = {"build": 0.0, "problem": 0.0, "gpu": 0.0, "ncu": 0.0}

    # ---- life cycle ---------------------------------------------------------
    def __enter__(self) -> "Profiler":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        if self._worker is not None:
            self._worker.stop()
            self._worker = None
        for pool in (self._compile_pool, self._problem_pool):
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)
        self._compile_pool = self._problem_pool = None
        shutil.rmtree(self._work, ignore_errors=True)

    def _pools(self) -> None:
        if self._compile_pool is None:
            ctx = mp.get_context("spawn")
            n = self.settings.compile_workers or max(1, (os.cpu_count() or 2) - 2)
            self._compile_pool = ProcessPoolExecutor(n, mp_context=ctx, initializer=compile_worker_setup)
            self._problem_pool = ProcessPoolExecutor(max(1, self.settings.problem_workers), mp_context=ctx)

    def worker(self) -> GpuWorker:
        if self._worker is None:
            self._worker = GpuWorker(cache_dir=self.settings.cache_dir)
            self._worker.start()
        return self._worker

    def provenance(self) -> dict[str, Any]:
        return provenance(self.worker().info)

    # ---- the CPU side -------------------------------------------------------
    def _submit_build(self, job: Job) -> Future:
        key = (job.source, job.kernel)
        if key not in self._builds:
            self._builds[key] = self._compile_pool.submit(build.build, job.source, job.kernel, self.arch,
                                                          self.settings.cache_dir)
        return self._builds[key]

    def _submit_problem(self, job: Job) -> Future:
        key = job.problem_key
        if key in self._prepared:
            self._prepared.move_to_end(key)
        else:
            self._prepared[key] = self._problem_pool.submit(problems.prepare, job.problem, job.problem_kwargs, key, self._work)
        return self._prepared[key]

    def _evict_problems(self, pinned: set[str]) -> None:
        while len(self._prepared) > self.settings.keep_problems:
            victim = next((k for k in self._prepared if k not in pinned), None)
            if victim is None:
                return
            fut = self._prepared.pop(victim)
            if fut.done():
                shutil.rmtree(os.path.join(self._work, victim), ignore_errors=True)

    # ---- the GPU side -------------------------------------------------------
    def run(self, jobs: Iterable[Job], counters: bool | Collection[str] = False) -> Iterator[Measurement]:
        """Measure each job; yields Measurements (grouped by problem, not in input order).

        counters: True for all, or the ids of the jobs to re-run under ncu. Those
        jobs' Measurements (the ok ones) are held back until the ncu pass at the end.
        """
        jobs = list(jobs)
        if not jobs:
            return
        self._pools()
        worker = self.worker()
        want = (lambda j: True) if counters is True else (lambda j: bool(counters) and j.id in counters)  # type: ignore[operator]
        groups = group_by_problem(jobs)
        keys = list(groups)
        for job in jobs:
            self._submit_build(job)
        held: list[tuple[Measurement, ncu_counters.CounterItem]] = []
        pinned: set[str] = set()
        for gi, key in enumerate(keys):
            depth = max(1, self.settings.problem_workers)
            for ahead in keys[gi: gi + 1 + depth]:  # build this problem and the next ones on CPU
                self._submit_problem(groups[ahead][0])
            t0 = time.perf_counter()
            try:
                prep: problems.PreparedProblem = self._prepared[key].result()
            except Exception as exc:  # the problem pool itself broke
                prep = problems.PreparedProblem(key, "", f"problem build failed: {type(exc).__name__}: {exc}")
            self.waits["problem"] += time.perf_counter() - t0
            for job in groups[key]:
                m, item = self._one(worker, job, prep)
                if m.ok and item is not None and want(job):
                    held.append((m, item))
                    pinned.add(key)
                else:
                    yield m
            self._evict_problems(pinned | set(keys[gi + 1: gi + 2 + depth]))
        if held:
            t0 = time.perf_counter()
            try:
                got = ncu_counters.collect([item for _, item in held], timeout_s=self.settings.ncu_timeout_s,
                                           work_dir=self._work, log=self.log)
            except toolkit.ToolkitError as exc:
                got = {}
                if self.log is not None:
                    print(f"counters skipped: {exc}", file=self.log)
            self.waits["ncu"] += time.perf_counter() - t0
            for m, _ in held:
                m.counters = got.get(m.job_id, {})
                yield m
        self._evict_problems(set())

    def _one(self, worker: GpuWorker, job: Job, prep: problems.PreparedProblem) -> tuple[Measurement, Any]:
        t0 = time.perf_counter()
        try:
            built: build.BuildResult = self._submit_build(job).result()
        except Exception as exc:
            self.waits["build"] += time.perf_counter() - t0
            return Measurement(job.id, "compile_error", one_line(f"builder failed: {type(exc).__name__}: {exc}")), None
        self.waits["build"] += time.perf_counter() - t0
        if not built.ok:
            m = measurement_from(job, built, {"status": "compile_error", "message": one_line(built.log)})
            m.log = built.log
            return m, None
        problem_error = prep.error or problems.validate(prep.dir, job.buffers)
        if problem_error:
            return measurement_from(job, built, {"status": "input_error", "message": problem_error}), None
        req = RunRequest(job, built.cubin_path, built.lowered_name, prep.dir, self.settings.timing)
        t0 = time.perf_counter()
        result = worker.run(req, self.settings.prepare_timeout_s, self.settings.timeout_s)
        self.waits["gpu"] += time.perf_counter() - t0
        m = measurement_from(job, built, result)
        item = ncu_counters.CounterItem(job, built.cubin_path, built.lowered_name, prep.dir)
        return m, item


def profile(jobs: Iterable[Job], counters: bool | Collection[str] = False, timeout_s: float = 30.0,
            log: Any = sys.stderr, **settings: Any) -> Iterator[Measurement]:
    """One-shot: measure jobs with a fresh Profiler. See Profiler.run."""
    with Profiler(Settings(timeout_s=timeout_s, **settings), log=log) as prof:
        yield from prof.run(jobs, counters=counters)
