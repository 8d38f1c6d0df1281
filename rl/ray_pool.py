"""`RayPool`: real answers from several GPUs, one Ray actor per GPU, each running a `LocalGPU`.

Ray is imported only when a pool is made (`pip install cudaperf[ray]`), so the rest of `rl`
never needs it. Locally the pool starts Ray itself (`ray.init()`); with `address` it joins a
running cluster (every node needs cudaperf installed). If Ray is already initialised, the pool
uses it as it is and leaves it running on `close`.
"""
from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Callable, Mapping, Sequence

from corpus.families.base import Sample

from .records import NotMeasured, RealAnswer

__all__ = ["RayPool", "split"]


def split(samples: Sequence[Sample], k: int) -> list[list[int]]:
    """Indices of `samples` in k parts of near-equal length, samples sharing a problem together
    (the profiler builds and uploads a problem's inputs once per worker). A problem with more
    samples than a fair share is cut into fair-share pieces, so no GPU idles behind one big group."""
    from analyzer.profile.records import problem_key

    if k < 1:
        raise ValueError("split needs k >= 1")
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(samples):
        groups.setdefault(problem_key(s.problem, s.problem_kwargs), []).append(i)
    share = max(1, math.ceil(len(samples) / k))
    pieces = [g[j: j + share] for g in groups.values() for j in range(0, len(g), share)]
    parts: list[list[int]] = [[] for _ in range(k)]
    for piece in sorted(pieces, key=len, reverse=True):  # largest first onto the lightest part
        min(parts, key=len).extend(piece)
    return [sorted(p) for p in parts]


class _Worker:
    """The actor's body: one oracle, answers tagged so the driver re-raises clean one-line errors
    (an exception crossing Ray arrives wrapped in a remote traceback)."""

    def __init__(self, factory: Callable[[], Any] | None) -> None:
        self.error = ""
        try:
            if factory is None:
                from .oracle import LocalGPU

                factory = LocalGPU
            self.oracle = factory()
        except Exception as exc:  # noqa: BLE001 - reported on the first measure
            self.oracle = None
            self.error = f"{type(exc).__name__}: {exc}"

    def measure(self, samples: list[Sample]) -> tuple[str, Any]:
        if self.oracle is None:
            return "error", self.error
        try:
            return "ok", self.oracle.measure(samples)
        except NotMeasured as exc:
            return "not_measured", str(exc)
        except Exception as exc:  # noqa: BLE001 - one line for the driver
            return "error", f"{type(exc).__name__}: {exc}"

    def close(self) -> None:
        if self.oracle is not None:
            self.oracle.close()


class RayPool:
    """One actor per GPU, each holding its own `LocalGPU` (profiler, build cache, problems).

    `measure` splits a batch over the actors (samples sharing a problem kept together), waits
    for every part and returns the answers in the batch's order with origin "ray". Cost per
    answer: what the actor's `LocalGPU` recorded (compile + run seconds on that machine); the
    batch's wall time is about the largest part's, not the sum.

    address: a Ray cluster to join ("auto", "ray://host:10001", ...); None starts Ray locally.
    gpus: how many actors (default: every GPU the cluster has, divided by gpus_per_actor).
    oracle_factory: a picklable zero-argument callable building each actor's oracle (default
        LocalGPU); with gpus_per_actor=0 this runs the pool on CPUs, e.g. around `Replay`.
    gpus_per_actor: the GPUs Ray reserves for each actor (1: Ray gives it one GPU of its own).
    cpus_per_actor: the CPUs Ray reserves for each actor (default 0: Ray would otherwise hold one
        per actor, so on a small CPU machine a pool could wait forever for a CPU; the
        profiler's compile processes use the host's cores whatever Ray reserves).
    ray_init: extra keyword arguments for `ray.init` (num_cpus, include_dashboard, ...).
    """

    name = "ray"

    def __init__(self, address: str | None = None, gpus: int | None = None,
                 oracle_factory: Callable[[], Any] | None = None, gpus_per_actor: float = 1.0,
                 cpus_per_actor: float = 0.0, ray_init: Mapping[str, Any] | None = None) -> None:
        try:
            import ray  # noqa: F401 - fail here, with the fix, not on the first measure
        except ImportError:
            raise RuntimeError("the ray oracle needs Ray: pip install cudaperf[ray]") from None
        if gpus is not None and gpus < 1:
            raise ValueError(f"gpus must be at least 1, got {gpus}")
        if gpus_per_actor < 0 or cpus_per_actor < 0:
            raise ValueError(f"gpus_per_actor and cpus_per_actor must be >= 0, got {gpus_per_actor}, {cpus_per_actor}")
        self.address = address
        self.gpus = gpus
        self.oracle_factory = oracle_factory
        self.gpus_per_actor = gpus_per_actor
        self.cpus_per_actor = cpus_per_actor
        self.ray_init = dict(ray_init or {})
        self._actors: list[Any] = []
        self._started_ray = False

    # ---- life cycle ---------------------------------------------------------
    def start(self) -> "RayPool":
        """Start Ray (or join the cluster) and the actors; `measure` calls it when needed."""
        if self._actors:
            return self
        import ray

        if not ray.is_initialized():
            kw = dict(self.ray_init)
            if self.address is not None:
                kw["address"] = self.address
            try:
                ray.init(**kw)
            except Exception as exc:  # noqa: BLE001 - a wrong address, a cluster that is down
                raise RuntimeError(f"ray.init failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}") from None
            self._started_ray = True
        have = float(ray.cluster_resources().get("GPU", 0))
        n = self.gpus
        if n is None:
            if self.gpus_per_actor == 0:
                self.close()
                raise RuntimeError("gpus_per_actor=0 needs an explicit number of actors (gpus=N)")
            n = int(have // self.gpus_per_actor)
        # an actor Ray cannot place waits forever: refuse it here instead
        if n < 1 or n * self.gpus_per_actor > have:
            self.close()
            raise RuntimeError(f"no GPU in the Ray cluster for {n or 'any'} actor(s) of {self.gpus_per_actor:g} GPU "
                               f"(it has {have:g}); use the replay oracle on CPUs")
        actor = ray.remote(_Worker).options(num_gpus=self.gpus_per_actor, num_cpus=self.cpus_per_actor)
        self._actors = [actor.remote(self.oracle_factory) for _ in range(n)]
        return self

    @property
    def size(self) -> int:
        """Actors running now (0 before the first measure or `start`)."""
        return len(self._actors)

    def close(self) -> None:
        import ray

        if self._actors and ray.is_initialized():
            try:
                ray.get([a.close.remote() for a in self._actors], timeout=60)
            except Exception:  # noqa: BLE001 - an actor already gone has nothing to close
                pass
            for a in self._actors:
                ray.kill(a)
        self._actors = []
        if self._started_ray and ray.is_initialized():
            ray.shutdown()
        self._started_ray = False

    # ---- answers ------------------------------------------------------------
    def measure(self, samples: Sequence[Sample]) -> list[RealAnswer]:
        samples = list(samples)
        if not samples:
            return []
        import ray

        self.start()
        parts = [p for p in split(samples, len(self._actors)) if p]
        refs = [a.measure.remote([samples[i] for i in p]) for a, p in zip(self._actors, parts)]
        try:
            results = ray.get(refs)
        except ray.exceptions.RayError as exc:   # an actor died (its node went away, say)
            first = str(exc).strip().splitlines()
            raise RuntimeError(f"ray worker failed: {type(exc).__name__}: {first[0] if first else ''}") from None
        out: list[RealAnswer | None] = [None] * len(samples)
        for part, (kind, payload) in zip(parts, results):
            if kind == "not_measured":
                raise NotMeasured(payload)
            if kind != "ok":
                raise RuntimeError(f"ray worker failed: {payload}")
            for i, a in zip(part, payload):
                out[i] = replace(a, origin=self.name)
        return out  # type: ignore[return-value]
