"""Pure performance models: coalescing, bank conflicts, occupancy, roofline.

The access models evaluate each access's address for every thread of one
block at once (numpy), over sampled iterations of the loops around it, and
count what the hardware counts: 32-byte sectors per warp request for global
memory, wavefronts per warp request for shared memory (32 banks x 4 bytes, a
word read by several lanes is a broadcast, 8- and 16-byte accesses go in 2 and
4 phases). Each request is weighted by how often it runs, so per-kernel totals
are comparable with Nsight Compute's sectors/requests.
"""
from __future__ import annotations

import math
from functools import lru_cache
from dataclasses import dataclass, field
from typing import Iterator, Mapping

import numpy as np

from . import symbolic as S
from .access import Access, Loop

Dim3 = tuple[int, int, int]

DEFAULT_PARAM_VALUE = 4096   # a scalar parameter whose value nobody gave: large, like a real size
MAX_THREADS = 1024


# ------------------------------------------------------------------ architectures

@dataclass(frozen=True)
class Arch:
    name: str
    max_warps_per_sm: int
    max_blocks_per_sm: int
    regs_per_sm: int
    max_regs_per_thread: int
    smem_per_sm: int            # bytes usable by blocks
    max_smem_per_block: int     # opt-in maximum
    sm_count: int
    dram_bytes_per_s: float
    fp32_flops_per_s: float
    l2_bytes: int
    reg_alloc_unit: int = 256   # registers per warp are allocated in units of this
    smem_alloc_unit: int = 128
    smem_reserved_per_block: int = 1024
    gpu: str = ""


ARCHS: dict[str, Arch] = {
    # Datasheet figures; sm_90 bandwidth is the device-to-device copy measured on our H200.
    "sm_80": Arch("sm_80", 64, 32, 65536, 255, 167936, 166912, 108, 2.0e12, 19.5e12, 40 << 20, gpu="A100-80GB"),
    "sm_86": Arch("sm_86", 48, 16, 65536, 255, 102400, 101376, 84, 0.936e12, 35.6e12, 6 << 20, gpu="RTX 3090"),
    "sm_89": Arch("sm_89", 48, 24, 65536, 255, 102400, 101376, 128, 1.008e12, 82.6e12, 72 << 20, gpu="RTX 4090"),
    "sm_90": Arch("sm_90", 64, 32, 65536, 255, 233472, 232448, 132, 4.3e12, 67e12, 60 << 20, gpu="H200 SXM"),
}
DEFAULT_ARCH = "sm_90"


def arch(name: str) -> Arch:
    key = name.lower().replace("compute_", "sm_")
    if not key.startswith("sm_"):
        key = "sm_" + key
    if key not in ARCHS:
        raise ValueError(f"unknown arch {name!r}: choose one of {', '.join(ARCHS)}")
    return ARCHS[key]


# ------------------------------------------------------------------ occupancy

@dataclass(frozen=True)
class Occupancy:
    blocks_per_sm: int
    warps_per_sm: int
    occupancy: float            # active warps / max warps
    limiter: str                # "registers", "shared memory", "warps", "blocks", "block size"
    limits: dict[str, int] = field(default_factory=dict, compare=False)


def occupancy(a: Arch, threads_per_block: int, regs_per_thread: int, smem_per_block: int) -> Occupancy:
    """Theoretical occupancy, as the CUDA occupancy calculator computes it."""
    if threads_per_block <= 0 or threads_per_block > 1024:
        return Occupancy(0, 0, 0.0, "block size", {})
    warps = math.ceil(threads_per_block / 32)
    limits = {"blocks": a.max_blocks_per_sm, "warps": a.max_warps_per_sm // warps}
    if regs_per_thread > 0:
        if regs_per_thread > a.max_regs_per_thread:
            return Occupancy(0, 0, 0.0, "registers", limits)
        per_warp = math.ceil(regs_per_thread * 32 / a.reg_alloc_unit) * a.reg_alloc_unit
        limits["registers"] = (a.regs_per_sm // per_warp) // warps
    if smem_per_block > 0:
        if smem_per_block > a.max_smem_per_block:
            return Occupancy(0, 0, 0.0, "shared memory", limits)
        per_block = math.ceil((smem_per_block + a.smem_reserved_per_block) / a.smem_alloc_unit) * a.smem_alloc_unit
        limits["shared memory"] = a.smem_per_sm // per_block
    limiter = min(limits, key=lambda k: (limits[k], ["warps", "blocks", "registers", "shared memory"].index(k)))
    blocks = limits[limiter]
    return Occupancy(blocks, blocks * warps, blocks * warps / a.max_warps_per_sm, limiter, limits)


# ------------------------------------------------------------------ roofline

def roofline_seconds(a: Arch, bytes_moved: float, flops: float) -> float:
    return max(bytes_moved / a.dram_bytes_per_s, flops / a.fp32_flops_per_s)


# ------------------------------------------------------------------ per-lane evaluation

@dataclass(frozen=True)
class Launch:
    """What the models need of a launch: block and grid shape, scalar argument values."""

    block: Dim3 = (256, 1, 1)
    grid: Dim3 = (1024, 1, 1)
    args: Mapping[str, int | float] = field(default_factory=dict)

    @property
    def threads(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]


@dataclass(frozen=True)
class Estimate:
    """One access's traffic over one block, weighted by how often each request runs."""

    requests: float             # warp-level requests
    units: float                # sectors (global) or wavefronts (shared)
    ideal_units: float          # the same traffic with perfect coalescing / no conflicts
    active_lanes: float         # lanes per request, on average
    assumed: tuple[str, ...] = ()   # parameters that took a default value

    @property
    def per_request(self) -> float:
        return self.units / self.requests if self.requests else 0.0

    @property
    def ideal_per_request(self) -> float:
        return self.ideal_units / self.requests if self.requests else 0.0

    @property
    def ways(self) -> float:
        """Shared memory: average n-way conflict degree (1 = conflict free)."""
        return self.units / self.ideal_units if self.ideal_units else 1.0


def thread_env(launch: Launch, max_threads: int = MAX_THREADS) -> dict[str, np.ndarray | int]:
    return dict(_thread_env(launch.block, launch.grid, max_threads))


@lru_cache(maxsize=64)
def _thread_env(block: Dim3, grid: Dim3, max_threads: int) -> dict[str, np.ndarray | int]:
    bx, by, bz = block
    n = min(bx * by * bz, max_threads)
    n = max(32, -(-n // 32) * 32) if bx * by * bz >= 32 else bx * by * bz
    lin = np.arange(n, dtype=np.int64)
    gx, gy, gz = grid
    env: dict[str, np.ndarray | int] = {
        "threadIdx.x": lin % bx, "threadIdx.y": (lin // bx) % by, "threadIdx.z": lin // (bx * by),
        "blockDim.x": bx, "blockDim.y": by, "blockDim.z": bz,
        "gridDim.x": gx, "gridDim.y": gy, "gridDim.z": gz,
        # a block away from the origin, so misalignment from block offsets shows
        "blockIdx.x": min(1, gx - 1), "blockIdx.y": min(1, gy - 1), "blockIdx.z": min(1, gz - 1),
        "warpSize": 32,
    }
    env["%valid"] = lin < bx * by * bz
    for v in env.values():
        if isinstance(v, np.ndarray):
            v.setflags(write=False)  # cached and shared between calls
    return env


def bind_params(env: dict, params: Mapping[str, int | float], needed: set[str],
                defaults: Mapping[str, int | float] | None = None) -> tuple[dict, tuple[str, ...]]:
    """Add scalar arguments; names nobody bound get DEFAULT_PARAM_VALUE and are reported."""
    out = dict(env)
    assumed = []
    for name in needed:
        if name in out or "@" in name or name.startswith("%"):
            continue
        if name in params:
            out[name] = params[name]
        elif defaults and name in defaults:
            out[name] = defaults[name]
        else:
            out[name] = DEFAULT_PARAM_VALUE
            assumed.append(name)
    return out, tuple(sorted(assumed))


def _step(op: str, value, inc):
    if op == "+=":
        return value + inc
    if op == "-=":
        return value - inc
    if op == "*=":
        return value * inc
    if op == "/=":
        return S._cdiv(value, inc) if np.all(np.asarray(inc) != 0) else None
    if op == "<<=":
        return np.left_shift(value, inc) if np.ndim(value) else int(value) << int(inc)
    if op == ">>=":
        return np.right_shift(value, inc) if np.ndim(value) else int(value) >> int(inc)
    return None


def trip_count(loop: Loop, env: Mapping) -> float | None:
    """Iterations of a loop with an additive step, from its closed form (mean over threads)."""
    if loop.step is None or loop.cond is None or loop.var is None or loop.step[0] not in ("+=", "-="):
        return None
    cond = loop.cond
    if cond[0] != "b" or cond[1] not in ("<", "<=", ">", ">=", "!="):
        return None
    if cond[2] != ("s", loop.var):
        return None
    init = S.evaluate(loop.init, env)
    bound = S.evaluate(cond[3], env)
    inc = S.evaluate(loop.step[1], env)
    if init is None or bound is None or inc is None:
        return None
    inc = np.asarray(inc) * (1 if loop.step[0] == "+=" else -1)
    if np.any(inc == 0):
        return None
    span = np.asarray(bound, dtype=np.float64) - np.asarray(init, dtype=np.float64)
    if cond[1] == "<=":
        span = span + np.sign(inc)
    elif cond[1] == ">=":
        span = span + np.sign(inc)
    trips = np.maximum(0.0, np.ceil(span / inc))
    return float(np.max(trips)) if np.ndim(trips) else float(trips)


def iterations(loops: tuple[Loop, ...], env: dict, max_iters: int, budget: list[int]) -> Iterator[tuple[dict, float]]:
    """(environment, weight) for sampled iterations of nested loops, outermost first.

    Multiplicative loops (reductions' `s >>= 1`) are walked to the end, up to
    max_iters*4; additive loops are sampled for max_iters iterations and the
    rest of their trip count is carried as weight.
    """
    if not loops:
        yield env, 1.0
        return
    loop, rest = loops[0], loops[1:]
    init = S.evaluate(loop.init, env) if loop.var else None
    if loop.var is None or init is None or loop.step is None:
        env2 = dict(env)
        env2[loop.iter_symbol] = 0
        if loop.var is not None:
            env2[loop.var] = init
        yield from iterations(rest, env2, max_iters, budget)
        return
    inc = S.evaluate(loop.step[1], env)
    additive = loop.step[0] in ("+=", "-=")
    cap = max_iters if additive else max_iters * 4
    trips = trip_count(loop, env) if additive else None
    value = init
    sampled: list[dict] = []
    k = 0
    while k < cap and budget[0] > 0 and value is not None and inc is not None:
        env2 = dict(env)
        env2[loop.var] = value
        env2[loop.iter_symbol] = k
        if loop.cond is not None:
            c = S.evaluate(loop.cond, env2)
            if c is not None and not np.any(c):
                break
        sampled.append(env2)
        budget[0] -= 1
        value = _step(loop.step[0], value, inc)
        k += 1
    if not sampled:
        return
    weight = trips / len(sampled) if trips and trips > len(sampled) else 1.0
    for env2 in sampled:
        for inner_env, w in iterations(rest, env2, max_iters, budget):
            yield inner_env, w * weight


def active_mask(guards: tuple[S.Expr, ...], env: Mapping, n: int) -> np.ndarray:
    """Threads for which every known guard holds; a guard we cannot evaluate counts as true."""
    mask = np.asarray(env["%valid"], dtype=bool).copy()
    for g in guards:
        v = S.evaluate(g, env)
        if v is None:
            continue
        mask &= np.broadcast_to(np.asarray(v) != 0, (n,))
    return mask


def _distinct_per_row(values: np.ndarray, valid: np.ndarray) -> np.ndarray:
    sentinel = np.iinfo(np.int64).max
    v = np.where(valid, values, sentinel)
    v.sort(axis=1)
    new = np.ones(v.shape, dtype=bool)
    new[:, 1:] = v[:, 1:] != v[:, :-1]
    new &= v != sentinel
    return new.sum(axis=1)


def _warps(x: np.ndarray, n: int) -> np.ndarray:
    pad = (-n) % 32
    if pad:
        x = np.concatenate([x, np.zeros(pad, dtype=x.dtype)])
    return x.reshape(-1, 32)


def global_sectors(addr: np.ndarray, active: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per warp: requests (0/1), sectors touched, and the ideal sector count."""
    n = addr.shape[0]
    a = _warps(addr.astype(np.int64), n)
    m = _warps(active, n)
    first = a // 32
    last = (a + size - 1) // 32
    spans = [first] + ([last] if size > 1 else [])
    # elements wider than a sector (double4) cover every sector between first and last
    for extra in range(1, max(0, (size - 1) // 32)):
        spans.append(first + extra)
    sectors = _distinct_per_row(np.concatenate(spans, axis=1), np.concatenate([m] * len(spans), axis=1))
    distinct_elems = _distinct_per_row(a, m)
    ideal = np.ceil(distinct_elems * size / 32.0)
    requests = m.any(axis=1).astype(np.float64)
    return requests, sectors.astype(np.float64), ideal


def shared_wavefronts(addr: np.ndarray, active: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per warp: requests (0/1), wavefronts, and the conflict-free wavefront count."""
    n = addr.shape[0]
    a = _warps(addr.astype(np.int64), n)
    m = _warps(active, n)
    words_per_lane = max(1, size // 4)
    lanes_per_phase = 32 if size <= 4 else max(1, 128 // size)
    phases = 32 // lanes_per_phase
    w = a.shape[0]
    word0 = a // 4
    words = np.stack([word0 + k for k in range(words_per_lane)], axis=2)          # (w, 32, k)
    words = words.reshape(w, phases, lanes_per_phase * words_per_lane)
    valid = np.repeat(m[:, :, None], words_per_lane, axis=2).reshape(w, phases, lanes_per_phase * words_per_lane)
    rows = words.reshape(w * phases, -1)
    vrows = valid.reshape(w * phases, -1)
    sentinel = np.iinfo(np.int64).max
    v = np.where(vrows, rows, sentinel)
    order = np.argsort(v, axis=1, kind="stable")
    v = np.take_along_axis(v, order, axis=1)
    new = np.ones(v.shape, dtype=bool)
    new[:, 1:] = v[:, 1:] != v[:, :-1]
    new &= v != sentinel
    banks = np.where(new, v % 32, 0)
    row_ids = np.repeat(np.arange(rows.shape[0]), rows.shape[1]).reshape(rows.shape)
    counts = np.bincount((row_ids * 32 + banks)[new], minlength=rows.shape[0] * 32).reshape(rows.shape[0], 32)
    per_phase = counts.max(axis=1).reshape(w, phases)
    wavefronts = per_phase.sum(axis=1).astype(np.float64)
    ideal = (per_phase > 0).sum(axis=1).astype(np.float64)
    requests = m.any(axis=1).astype(np.float64)
    return requests, wavefronts, ideal


def estimate(access: Access, launch: Launch, *, max_iters: int = 8, max_threads: int = MAX_THREADS,
             max_points: int = 64, defaults: Mapping[str, int | float] | None = None) -> Estimate | None:
    """Sectors (global) or wavefronts (shared) per block for one access, or None if its
    address cannot be evaluated (data-dependent or unknown index)."""
    if access.space not in ("global", "shared"):
        return None
    if S.is_unknown(access.address):
        return None
    base = thread_env(launch, max_threads)
    n = base["threadIdx.x"].shape[0]
    needed = S.symbols(access.address)
    for g in access.guards:
        needed |= S.symbols(g)
    for lp in access.loops:
        needed |= S.symbols(lp.init) | (S.symbols(lp.cond) if lp.cond else set()) | (
            S.symbols(lp.step[1]) if lp.step else set())
    env, assumed = bind_params(base, launch.args, needed, defaults)
    model = global_sectors if access.space == "global" else shared_wavefronts
    req = units = ideal = lanes = 0.0
    budget = [max_points]
    for point, weight in iterations(access.loops, env, max_iters, budget):
        addr = S.evaluate(access.address, point)
        if addr is None:
            return None
        addr = np.broadcast_to(np.asarray(addr), (n,))
        if addr.dtype.kind == "f":
            return None
        mask = active_mask(access.guards, point, n)
        r, u, i = model(addr, mask, access.elem_size)
        req += weight * r.sum()
        units += weight * u.sum()
        ideal += weight * i.sum()
        lanes += weight * mask.sum()
    if req == 0:
        return Estimate(0.0, 0.0, 0.0, 0.0, assumed)
    scale = launch.threads / n if n < launch.threads else 1.0   # threads we did not simulate behave alike
    return Estimate(req * scale, units * scale, ideal * scale, lanes / req, assumed)


def is_divergent(cond: S.Expr, loops: tuple[Loop, ...], guards: tuple[S.Expr, ...], launch: Launch,
                 max_iters: int = 4) -> bool | None:
    """Whether a condition splits some warp (True), never does (False), or we cannot tell (None)."""
    base = thread_env(launch, 256)
    n = base["threadIdx.x"].shape[0]
    needed = S.symbols(cond)
    for g in guards:
        needed |= S.symbols(g)
    for lp in loops:
        needed |= S.symbols(lp.init) | (S.symbols(lp.cond) if lp.cond else set()) | (
            S.symbols(lp.step[1]) if lp.step else set())
    env, _ = bind_params(base, launch.args, needed)
    seen = False
    for point, _w in iterations(loops, env, max_iters, [32]):
        v = S.evaluate(cond, point)
        if v is None:
            return None
        seen = True
        mask = active_mask(guards, point, n)
        values = _warps(np.broadcast_to(np.asarray(v) != 0, (n,)).copy(), n)
        m = _warps(mask, n)
        any_true = (values & m).any(axis=1)
        any_false = (~values & m).any(axis=1)
        if np.any(any_true & any_false):
            return True
    return False if seen else None
