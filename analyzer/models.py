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

import collections
import math
import operator
from functools import lru_cache
from dataclasses import dataclass, field
from typing import Iterator, Mapping

import numpy as np
from ._records import fast_init

from . import _fresh
from . import symbolic as S
from .access import Access, Loop

# the lane models' counts as C loops where they were built (setup.py); else the numpy code below
_lanes = _fresh.accelerator("analyzer._lanes")

Dim3 = tuple[int, int, int]

DEFAULT_PARAM_VALUE = 4096   # a scalar parameter whose value nobody gave: large, like a real size
MAX_THREADS = 1024

# CUDA's launch limits, the same on every architecture we model
BLOCK_LIMITS = (1024, 1024, 64)
GRID_LIMITS = ((1 << 31) - 1, 65535, 65535)
BLOCK_THREADS_LIMIT = 1024


def launch_dims_problem(kind: str, dims) -> str | None:
    """Why `dims`, a "block" or a "grid" (kind), is no launch CUDA would run; None if it is one."""
    limits = BLOCK_LIMITS if kind == "block" else GRID_LIMITS
    if len(dims) != 3 or not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in dims):
        return f"{kind} {tuple(dims)!r}: expected 3 integers"
    if not all(1 <= d <= hi for d, hi in zip(dims, limits)):
        return f"{kind} {'x'.join(map(str, dims))}: each dimension must be 1..{'/'.join(map(str, limits))}"
    threads = dims[0] * dims[1] * dims[2]
    if kind == "block" and threads > BLOCK_THREADS_LIMIT:
        return f"block {'x'.join(map(str, dims))} has {threads} threads; CUDA allows {BLOCK_THREADS_LIMIT}"
    return None


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
    # the pipes `time_estimate` bounds a launch by (sm_90: measured on our H200 by bench/gpu_pipes.py;
    # the other archs: their datasheet clock with sm_90's per-clock rates and L2/DRAM ratio, unmeasured)
    clock_hz: float = 1.98e9
    l2_bytes_per_s: float = 0.0               # 0: 1.7x the DRAM bandwidth (the H200's ratio)
    global_requests_per_sm_clk: float = 0.75  # warp-level load/store requests that hit L1
    shared_wavefronts_per_sm_clk: float = 1.0
    atomic_ops_per_s: float = 0.0             # uncontended global atomics (lanes); 0: sm_90's per SM-clock rate
    launch_s: float = 6.4e-6                  # an empty kernel, event-timed
    tensor_flops_per_s: float = 0.0           # half products, float accumulation (wmma); 0: none


# wmma half products with float accumulation on our H200: bench/results/h200/gpu_pipes_tensor.json
# (2026-12-06), 64% of the datasheet's dense 989 TFLOP/s (which wgmma, not wmma, approaches)
TENSOR_SM90 = 6.28e14

ARCHS: dict[str, Arch] = {
    # Datasheet figures; sm_90 bandwidth is the device-to-device copy measured on our H200.
    # (tensor: the datasheets' dense FP16 rate with FP32 accumulation)
    "sm_80": Arch("sm_80", 64, 32, 65536, 255, 167936, 166912, 108, 2.0e12, 19.5e12, 40 << 20, gpu="A100-80GB",
                  clock_hz=1.41e9, tensor_flops_per_s=312e12),
    "sm_86": Arch("sm_86", 48, 16, 65536, 255, 102400, 101376, 84, 0.936e12, 35.6e12, 6 << 20, gpu="RTX 3090",
                  clock_hz=1.695e9, tensor_flops_per_s=71e12),
    "sm_89": Arch("sm_89", 48, 24, 65536, 255, 102400, 101376, 128, 1.008e12, 82.6e12, 72 << 20, gpu="RTX 4090",
                  clock_hz=2.52e9, tensor_flops_per_s=165e12),
    # bench/results/gpu_pipes.json (2026-12-03): L2 7.64e12 B/s, 0.75 L1-hit requests and 0.91-0.99
    # shared wavefronts per SM-clock, 4.9e11 uncontended atomics/s, 6.4 us for an empty launch
    "sm_90": Arch("sm_90", 64, 32, 65536, 255, 233472, 232448, 132, 4.3e12, 67e12, 60 << 20, gpu="H200 SXM",
                  l2_bytes_per_s=7.64e12, atomic_ops_per_s=4.93e11, tensor_flops_per_s=TENSOR_SM90),
}
# the archs without a measured atomic rate take the H200's per SM-clock one
_ATOMIC_OPS_PER_SM_CLK = ARCHS["sm_90"].atomic_ops_per_s / (ARCHS["sm_90"].sm_count * ARCHS["sm_90"].clock_hz)
DEFAULT_ARCH = "sm_90"


def arch(name: str) -> Arch:
    key = name.lower().replace("compute_", "sm_")
    if not key.startswith("sm_"):
        key = "sm_" + key
    if key not in ARCHS:
        raise ValueError(f"unknown arch {name!r}: choose one of {', '.join(ARCHS)}")
    return ARCHS[key]


# ------------------------------------------------------------------ occupancy

@fast_init
@dataclass(frozen=True)
class Occupancy:
    blocks_per_sm: int
    warps_per_sm: int
    occupancy: float            # active warps / max warps
    limiter: str                # "registers", "shared memory", "warps", "blocks", "block size"
    limits: dict[str, int] = field(default_factory=dict, compare=False)


_LIMITER_ORDER = {"warps": 0, "blocks": 1, "registers": 2, "shared memory": 3}   # ties go to the first


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
    limiter = min(limits, key=lambda k: (limits[k], _LIMITER_ORDER[k]))
    blocks = limits[limiter]
    return Occupancy(blocks, blocks * warps, blocks * warps / a.max_warps_per_sm, limiter, limits)


# ------------------------------------------------------------------ roofline

def roofline_seconds(a: Arch, bytes_moved: float, flops: float, tensor_flops: float = 0.0) -> float:
    """The roofline bound: the task's bytes through DRAM, or its flops, those a kernel does on the
    tensor cores at their rate and the rest (`flops`) at FP32's, whichever takes longer."""
    return max(bytes_moved / a.dram_bytes_per_s,
               flops / a.fp32_flops_per_s + tensor_flops / (a.tensor_flops_per_s or a.fp32_flops_per_s))


PIPES = ("dram", "fp32", "l2", "requests", "shared", "atomics", "tensor")


def pipe_times(a: Arch, *, task_bytes: float, flops: float, traffic_bytes: float, global_requests: float,
               shared_wavefronts: float, atomic_ops: float, tensor_flops: float = 0.0) -> dict[str, float]:
    """Seconds each pipe needs for one launch's work at its measured rate (keys: PIPES): the task's
    bytes through DRAM and its flops through FP32 (the roofline's two), the sectors the accesses
    touch through L2, the warp requests through the SMs' load/store pipe, the shared-memory
    wavefronts (bank conflicts included), the global atomics' lanes, and the tensor cores'
    products (`flops` are then the rest; an arch without tensor rate runs them at FP32's)."""
    sm_clk = a.sm_count * a.clock_hz
    l2 = a.l2_bytes_per_s or 1.7 * a.dram_bytes_per_s
    atomic = a.atomic_ops_per_s or _ATOMIC_OPS_PER_SM_CLK * sm_clk
    return {"dram": task_bytes / a.dram_bytes_per_s, "fp32": flops / a.fp32_flops_per_s,
            "l2": traffic_bytes / l2, "requests": global_requests / (a.global_requests_per_sm_clk * sm_clk),
            "shared": shared_wavefronts / (a.shared_wavefronts_per_sm_clk * sm_clk), "atomics": atomic_ops / atomic,
            "tensor": tensor_flops / (a.tensor_flops_per_s or a.fp32_flops_per_s)}


def time_estimate(a: Arch, *, task_bytes: float, flops: float, traffic_bytes: float, global_requests: float,
                  shared_wavefronts: float, atomic_ops: float, tensor_flops: float = 0.0) -> float:
    """Seconds for one launch if it ran at the speed of its slowest pipe (`pipe_times`), plus the
    launch itself: a bound-and-bottleneck estimate over the whole grid. Latency, contention and
    overlap are left to the learned model, which predicts the runtime relative to this estimate."""
    pipes = pipe_times(a, task_bytes=task_bytes, flops=flops, traffic_bytes=traffic_bytes,
                       global_requests=global_requests, shared_wavefronts=shared_wavefronts, atomic_ops=atomic_ops,
                       tensor_flops=tensor_flops)
    return slowest_pipe_estimate(a, pipes)


def slowest_pipe_estimate(a: Arch, pipes: dict[str, float]) -> float:
    """`time_estimate` from pipe times already computed: the launch plus the slowest pipe."""
    return a.launch_s + max(pipes.values())


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


@fast_init
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
    threads = bx * by * bz
    n = max(32, -(-min(threads, max_threads) // 32) * 32)   # whole warps; the tail of the last is inactive
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
    env["%valid"] = lin < threads
    for v in env.values():
        if isinstance(v, np.ndarray):
            v.setflags(write=False)  # cached and shared between calls
    return env


def launch_bounds_registers(arch: Arch, max_threads: int, min_blocks: int | None = None) -> int:
    """The most registers a thread may use under `__launch_bounds__(max_threads, min_blocks)`: ptxas
    keeps the count at what lets min_blocks blocks of max_threads threads be resident (registers
    are allocated per warp in units of arch.reg_alloc_unit)."""
    warps = -(-max_threads // 32) * max(1, min_blocks or 1)
    per_warp = arch.regs_per_sm // warps // arch.reg_alloc_unit * arch.reg_alloc_unit
    return max(1, min(arch.max_regs_per_thread, per_warp // 32))


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
    if assumed:
        out["%assumed"] = frozenset(assumed)    # for models that must not lean on made-up values
    return out, tuple(sorted(assumed))


def representable(x) -> bool:
    """A value (or array) the models' int64 arithmetic can take: finite, and an int within
    int64 (code under edit writes `i += 1e-308`, `s <<= 1e308` or `s[1 << 70]`)."""
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "iub" or (x.dtype.kind == "f" and bool(np.isfinite(x).all()))
    if isinstance(x, float):
        return math.isfinite(x)
    return not isinstance(x, int) or -S.INT64_LIMIT <= x < S.INT64_LIMIT


def _step(op: str, value, inc):
    """The loop variable's next value, or None where it has none we can compute (the sampling
    stops there)."""
    if not (representable(value) and representable(inc)):
        return None
    if op in ("<<=", ">>="):
        if S.ndim(inc) or not 0 <= inc < 64:
            return None
        if not S.ndim(value):
            return S.shift_scalar(op == "<<=", value, inc)
        inc = int(inc)
    if op == "+=":
        return value + inc
    if op == "-=":
        return value - inc
    if op == "*=":
        return value * inc
    if op == "/=":
        return S._cdiv(value, inc) if np.all(np.asarray(inc) != 0) else None
    if op == "<<=":
        return np.left_shift(value, inc)      # per-thread values (scalars returned above)
    if op == ">>=":
        return np.right_shift(value, inc)
    return None


_SCALARS = (int, float, np.integer, np.floating)


def _plain(x) -> bool:
    """A scalar whose float64 arithmetic in Python equals numpy's (ints within int64)."""
    if isinstance(x, bool) or not isinstance(x, _SCALARS):
        return False
    if isinstance(x, float):
        return math.isfinite(x)
    return not isinstance(x, int) or -(1 << 62) < x < (1 << 62)


def trip_count(loop: Loop, env: Mapping) -> float | None:
    """Iterations of a loop with an additive step, from its closed form (mean over threads)."""
    if loop.step is None or loop.var is None:
        return None
    return _trips(loop, env, S.evaluate(loop.init, env), S.evaluate(loop.step[1], env))


def _trips(loop: Loop, env: Mapping, init, inc) -> float | None:
    """trip_count, given the loop's initial value and increment in `env` (already known)."""
    if loop.step is None or loop.cond is None or loop.var is None or loop.step[0] not in ("+=", "-="):
        return None
    if init is None or inc is None:
        return None
    trips = _cond_trips(loop.cond, ("s", loop.var), env, init, inc, loop.step[0] == "+=")
    return trips if trips is not None and math.isfinite(trips) else None


_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "!=": "!="}
_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _comparison_of(cond, var) -> tuple[str, S.Expr] | None:
    """(operator, bound) of a condition comparing the loop variable `var` with a bound, written
    `i < n` or `n > i` (then read as `i < n`); None for any other condition."""
    if cond[0] != "b" or cond[1] not in _MIRROR:
        return None
    op = cond[1]
    if cond[2] == var:
        return op, cond[3]
    if cond[3] == var:
        return _MIRROR[op], cond[2]
    return None


def _cond_trips(cond, var, env: Mapping, init, inc, plus: bool) -> float | None:
    """How many iterations a condition on the loop variable `var` lets run (inf: it never stops
    them), or None where it is not a comparison of var (`i < n`, `n > i`) or a conjunction of them."""
    if cond[0] != "b":
        return None
    op = cond[1]
    if op == "&&":
        a = _cond_trips(cond[2], var, env, init, inc, plus)
        b = _cond_trips(cond[3], var, env, init, inc, plus) if a is not None else None
        return None if b is None else min(a, b)
    compared = _comparison_of(cond, var)
    if compared is None:
        return None
    op, bound_expr = compared
    bound = S.evaluate(bound_expr, env)
    if bound is None:
        return None
    if op != "!=" and _plain(bound) and _plain(inc) and inc != 0 and ((inc > 0) == plus) != (op in ("<", "<=")) \
            and (_plain(init) or isinstance(init, np.ndarray) and init.dtype.kind in "iu" and init.size):
        # the variable moves away from the bound (`i >= 0` as i rises): the condition never ends the
        # loop where it holds at the start (in a conjunction, the other part does)
        holds = _COMPARE[op](init, bound)
        return math.inf if (_any(holds, axis=None) if isinstance(holds, np.ndarray) else holds) else 0.0
    if isinstance(init, np.ndarray) and init.dtype.kind in "iu" and init.size and _plain(bound) and _plain(inc):
        # one trip count per thread, and their maximum wanted: the count falls as the start rises
        # (with a positive step; rises with a negative one) in every step of the float arithmetic
        # below, so the maximum is the count of the smallest (largest) start, computed alone
        up = (inc if plus else -inc) > 0
        init = init.min() if up else init.max()
    if _plain(init) and _plain(bound) and _plain(inc):
        # scalars (the common case): the same arithmetic in float64 without numpy's per-call cost
        inc = inc * (1 if plus else -1)
        if inc == 0:
            return None
        span = float(bound) - float(init)
        if op in ("<=", ">="):
            span = span + (1 if inc > 0 else -1)
        trips = span / inc
        return max(0.0, float(math.ceil(trips))) if math.isfinite(trips) else None
    if not (representable(init) and representable(bound) and representable(inc)):
        return None     # beyond int64 or not finite: no count we can use
    inc = np.asarray(inc) * (1 if plus else -1)
    if np.any(inc == 0):
        return None
    span = np.asarray(bound, dtype=np.float64) - np.asarray(init, dtype=np.float64)
    if op in ("<=", ">="):
        span = span + np.sign(inc)
    trips = np.maximum(0.0, np.ceil(span / inc))
    top = float(np.max(trips)) if S.ndim(trips) else float(trips)
    return top if math.isfinite(top) else None


def iterations(loops: tuple[Loop, ...], env: dict, max_iters: int, budget: list[int]) -> Iterator[tuple[dict, float]]:
    """(environment, weight) for sampled iterations of nested loops, outermost first.

    Multiplicative loops (reductions' `s >>= 1`) are walked to the end, up to
    max_iters*4; additive loops are sampled for max_iters iterations and the
    rest of their trip count is carried as weight.
    """
    yield from PointCache()._points(loops, 0, env, max_iters, budget)


def last_iteration(loop: Loop, env: dict, cap: int = 64) -> dict | None:
    """The environment of a multiplicative loop's last iteration (`d >>= 1`, walked to its end),
    or None: an additive loop (sampled, not walked), one without a closed form, one that does not
    run, one longer than `cap` iterations."""
    if loop.step is None or loop.step[0] in ("+=", "-="):
        return None
    open_form, samples, _trips, _per_block = _level(loop, env, cap // 4)
    if open_form is not None or not samples or len(samples) >= cap:
        return None
    return samples[-1]


def _spread(inner: list, weight: float, iterations: float, starved: int) -> list[tuple[dict, float]]:
    """The points of a loop level's samples, each sample's inner points weighted by `weight` (the
    iterations a sample stands for; `iterations` in all). The `starved` samples the budget left
    without inner points stand for none: the others take over theirs (else a deep nest cut by the
    budget counted a fraction of its iterations: a 5x5 convolution inside a channel loop, a quarter).
    A sample whose inner loops do not run (`for (j = 0; j < i; ...)` at i = 0) still stands for its share."""
    if starved and starved < len(inner):
        weight = iterations / (len(inner) - starved)
    return [(env, w * weight) for pts in inner for env, w in pts]


def _inner_work_factor(loops, depth: int, env: dict, sampled: list, trips: float) -> float:
    """How much more inner-loop work an average iteration of loops[depth] does than its sampled
    first ones, where the inner loops' trip counts depend on its variable (a triangular nest:
    `for (i = 0; i < n; ++i) for (k = 0; k < i; ++k)`, whose first iterations run almost no inner
    iterations): the product of the inner trip counts at 8 iterations spread over the whole loop,
    over that product at the sampled ones. 1 where the inner counts do not depend on it or are
    not all known."""
    loop = loops[depth]
    var = loop.var
    inner = loops[depth + 1:]
    if var is None or loop.step is None or loop.step[0] not in ("+=", "-="):
        return 1.0
    for lp in inner:
        if var in _loop_symbols(lp):
            break
    else:
        return 1.0
    init, inc = S.evaluate(loop.init, env), S.evaluate(loop.step[1], env)
    if init is None or inc is None:
        return 1.0
    sampled_work = [_inner_work(inner, e) for e in sampled]
    spread_work = []
    for j in range(8):
        k = int((j + 0.5) * trips / 8)
        e = dict(env)
        e[var] = init + k * inc if loop.step[0] == "+=" else init - k * inc
        e[loop.iter_symbol] = k
        spread_work.append(_inner_work(inner, e))
    if None in sampled_work or None in spread_work:
        return 1.0
    mean_sampled = sum(sampled_work) / len(sampled_work)
    return sum(spread_work) / 8 / mean_sampled if mean_sampled > 0 else 1.0


def _inner_work(inner, env: dict) -> float | None:
    """The product of the trip counts of nested loops in `env`, each inner one at its outer
    loops' first iterations; None where one is not known."""
    env = dict(env)
    total = 1.0
    for lp in inner:
        if lp.var is None or lp.step is None:
            return None
        init, inc = S.evaluate(lp.init, env), S.evaluate(lp.step[1], env)
        t = _trips(lp, env, init, inc) if init is not None and inc is not None else None
        if t is None:
            return None
        total *= t
        env[lp.var] = init
        env[lp.iter_symbol] = 0
    return total


def _level(loop: Loop, env: dict, max_iters: int) -> tuple:
    """One loop level, without a budget: (env, None, None, 1.0) for a loop without a closed form
    (its variable is bound to the initial value), else (None, samples, trips, per_block) with the
    environments of up to the cap's iterations (additive loops max_iters, multiplicative ones 4x
    that), block 1's trip count and the grid's mean count over it (_block_mean_trips).
    `PointCache._points` takes a prefix of the samples as its budget allows."""
    var = loop.var
    init = S.evaluate(loop.init, env) if var else None
    if var is None or init is None or loop.step is None:
        env2 = dict(env)
        env2[loop.iter_symbol] = 0
        if var is not None:
            env2[var] = init
        return env2, None, None, 1.0
    op, step = loop.step
    inc = S.evaluate(step, env)
    additive = op in ("+=", "-=")
    cap = max_iters if additive else max_iters * 4
    trips = _trips(loop, env, init, inc) if additive else None
    # block 1's samples stand for the grid's blocks: by the ratio of their mean count to its own
    per_block = _block_mean_trips(loop, env, init, inc, trips) / trips if trips else 1.0
    cond = loop.cond
    iter_symbol = loop.iter_symbol
    value = init
    sampled: list[dict] = []
    k = 0
    while k < cap and value is not None and inc is not None:
        env2 = dict(env)
        env2[var] = value
        env2[iter_symbol] = k
        if cond is not None:
            c = S.evaluate(cond, env2)
            if c is not None and not (_any(c, axis=None) if isinstance(c, np.ndarray) else c):
                break
        sampled.append(env2)
        value = _step(op, value, inc)
        k += 1
    return None, sampled, trips, per_block


_BLOCK_SAMPLES = 256   # blocks whose trip counts stand for the grid's
_THREAD_IDS = frozenset(("threadIdx.x", "threadIdx.y", "threadIdx.z"))


def _block_mean_trips(loop: Loop, env: dict, init, inc, trips: float) -> float:
    """The mean trip count over the grid's blocks of a loop whose start or bound depends on one
    block index (`for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)`), where
    `trips` is block 1's (the block the model simulates): over a grid larger than its data the
    blocks past the data run no iteration, and block 1's count taken for every block counted up to
    twice the requests. Each block's count is its thread with the most iterations (block 1's
    thread with the smallest start, the one `_cond_trips` counts), as `trips` is. `trips` where the
    loop is not of that form (a single comparison of the loop variable, an additive step of one
    value for all, no other loop's variable in it) or where a parameter nobody gave is in it."""
    compared = _comparison_of(loop.cond, ("s", loop.var)) if loop.cond is not None else None
    if compared is None or compared[0] not in _COMPARE:
        return trips
    op, bound_expr = compared
    block = None
    bound_syms = S.symbols(bound_expr)
    if not bound_syms.isdisjoint(_THREAD_IDS):
        return trips        # a bound of its own for each thread: block 1's count stands
    syms = S.symbols(loop.init) | bound_syms
    if "%assumed" in env and not syms.isdisjoint(env["%assumed"]):
        return trips        # a value nobody gave (4096) would decide which blocks run none
    for sym in syms:
        if sym.startswith("blockIdx."):
            if block is not None:
                return trips                 # two block indices: block 1's count stands
            block = sym
        elif "@" in sym:
            return trips                     # inside another loop: its samples vary the count
    if block is None or not _plain(inc) or inc == 0:
        return trips
    g = env.get("gridDim." + block[-1])
    if not isinstance(g, int) or g <= 2:
        return trips
    up = (inc > 0) == (loop.step[0] == "+=")
    if up != (op in ("<", "<=")):
        return trips                         # moving away from the bound: not a count
    # the thread with the most iterations in block 1 stands for its block in every block
    if isinstance(init, np.ndarray):
        if init.ndim != 1 or not init.size:
            return trips
        t = int(init.argmin() if up else init.argmax())
    else:
        t = 0
    env_b = dict(env)
    for d in _THREAD_IDS:
        v = env.get(d)
        if isinstance(v, np.ndarray):
            env_b[d] = int(v[t]) if v.ndim == 1 and t < v.size else 0
    # every block, or 256 spread evenly from the first to the last (distinct: g > 256)
    blocks = np.arange(g, dtype=np.int64) if g <= _BLOCK_SAMPLES else \
        np.arange(_BLOCK_SAMPLES, dtype=np.int64) * (g - 1) // (_BLOCK_SAMPLES - 1)
    env_b[block] = blocks
    start = S.evaluate(loop.init, env_b)
    bound = S.evaluate(bound_expr, env_b)
    if start is None or bound is None or not (representable(start) and representable(bound)):
        return trips
    step = abs(inc)
    span = (np.asarray(bound, dtype=np.float64) - np.asarray(start, dtype=np.float64)) * (1 if up else -1)
    if op in ("<=", ">="):
        span = span + 1
    counts = np.maximum(0.0, np.ceil(span / step))
    if counts.shape != blocks.shape:
        return trips                         # a start or bound that is not one value a block
    return float(counts.mean())


_BOOL = np.dtype(bool)


def _truth(v) -> np.ndarray:
    """`np.asarray(v) != 0`, a condition's value as bools, without that comparison where the
    value is bools already (a comparison's or a logical operator's result, nearly every guard):
    the same array, which the caller only reads."""
    a = np.asarray(v)
    return a if a.dtype is _BOOL else a != 0


def _guard_value(g: S.Expr, env: Mapping, memo: dict | None = None):
    """A guard's value, as S.evaluate gives it; but for `a && b` with a side that cannot be
    evaluated (`i < n && mask[i]`: a load), the other side's: the unknown side counts as true,
    as a whole guard that cannot be evaluated does, and the bounds check still masks lanes."""
    v = S.evaluate(g, env, memo)
    if v is None and g[0] == "b" and g[1] == "&&":
        a = _guard_value(g[2], env, memo)
        b = _guard_value(g[3], env, memo)
        if a is None:
            return b
        if b is None:
            return a
        return np.logical_and(a, b)
    return v


def active_mask(guards: tuple[S.Expr, ...], env: Mapping, n: int) -> np.ndarray:
    """Threads for which every known guard holds; a guard we cannot evaluate counts as true."""
    mask = np.array(env["%valid"], dtype=bool)
    for g in guards:
        v = _guard_value(g, env)
        if v is None:
            continue
        if S.ndim(v) == 0:
            if not v:
                mask[:] = False
                break
        else:
            mask &= _truth(v)
    return mask


@dataclass
class Points:
    """Sampled loop iterations stacked on a leading axis: symbols map to scalars, (n,) or (P, n) arrays."""

    env: dict
    weights: np.ndarray          # (P,)
    n: int                       # threads per point (whole warps)
    memo: dict = field(default_factory=dict, repr=False, compare=False)   # S.evaluate's, for env

    @property
    def count(self) -> int:
        return len(self.weights)

    @property
    def warp_weights(self) -> np.ndarray:
        """The weights repeated for each warp of a point (computed once)."""
        w = self.__dict__.get("_warp_weights")
        if w is None:
            w = self.weights.repeat(self.n // 32)
            self.__dict__["_warp_weights"] = w
        return w


def stack(points: list[tuple[dict, float]], n: int, varying: set[str] | None = None) -> Points:
    """Stack per-iteration environments; `varying` names the symbols that change (the loop
    variables), every other symbol is taken from the first point."""
    if not points:
        return Points({}, np.zeros(0), n)
    envs = [p for p, _ in points]
    env: dict = dict(envs[0]) if varying is not None else {}
    for k in (varying if varying is not None else envs[0]):
        if k not in envs[0]:
            continue
        vals = [e.get(k) for e in envs]
        if any(v is None for v in vals):
            env.pop(k, None)  # unknown in some iteration: unknown
            continue
        first = vals[0]
        if all(v is first for v in vals):
            env[k] = first
        elif not any(isinstance(v, np.ndarray) and v.ndim for v in vals):
            if all(v == first for v in vals):
                env[k] = first
            else:
                env[k] = np.array(vals).reshape(-1, 1)   # (P, 1) broadcasts over threads
        elif all(isinstance(v, np.ndarray) and v.shape == (n,) for v in vals):
            env[k] = np.concatenate(vals).reshape(len(vals), n)   # np.stack, without its Python layer
        else:
            env[k] = np.stack([np.broadcast_to(np.asarray(v), (n,)) for v in vals])
    return Points(env, np.array([w for _, w in points], dtype=np.float64), n)


def stacked_mask(guards: tuple[S.Expr, ...], pts: Points) -> np.ndarray:
    """(P, n) active threads; a guard we cannot evaluate counts as true."""
    mask = np.empty((pts.count, pts.n), dtype=bool)
    mask[...] = pts.env["%valid"]
    for g in guards:
        v = _guard_value(g, pts.env, pts.memo)
        if v is None:
            continue
        mask &= _truth(v)
    return mask


class PointCache:
    """Sampled loop iterations and guard masks shared by the accesses of one kernel.

    Accesses in one loop nest see the same iterations, and most share their guards:
    computing those once per kernel instead of once per access halves the lint time.
    """

    def __init__(self) -> None:
        self.points: dict = {}
        self.masks: dict = {}
        self.lanes: dict = {}
        self.bound: dict = {}
        self.levels: dict = {}      # (loop, env) -> one loop's samples in env (see _points)
        self.points_by_id: dict = {}
        self.masks_by_id: dict = {}

    def bind(self, launch: Launch, needed: set[str], defaults, max_threads: int):
        """(env, assumed, points key) for one launch and symbol set: the rules ask for the same
        binding once per access and branch, so it is made once per kernel."""
        k = (id(launch), id(needed), id(defaults), max_threads)
        hit = self.bound.get(k)
        # the same objects, and (they are mutable) still the same contents
        if hit is None or hit[0] is not launch or hit[1] is not needed or hit[2] is not defaults or \
                needed != hit[6][0] or launch.args != hit[6][1] or (defaults or {}) != hit[6][2]:
            env, assumed = bind_params(thread_env(launch, max_threads), launch.args, needed, defaults)
            # a small int stands for the bound values in the cache keys (hashed on every lookup)
            hit = (launch, needed, defaults, env, assumed, ("bound", len(self.bound)),
                   (frozenset(needed), dict(launch.args), dict(defaults or {})))
            self.bound[k] = hit
        return hit[3], hit[4], hit[5]

    def lane_weight(self, pts: Points, mask: np.ndarray) -> float:
        """Active lanes summed over the points, weighted: once per mask (a mask `self.mask`
        gave, so the same object for the same guards and points: keyed by identity, which
        spares hashing the guard expressions again)."""
        hit = self.lanes.get(id(mask))
        if hit is not None and hit[0] is mask:
            return hit[1]
        v = float(pts.weights.dot(_sum(mask.reshape(pts.count, pts.n), axis=1)))
        self.lanes[id(mask)] = (mask, v)
        return v

    def stacked(self, loops, env, n, max_iters, max_points, key) -> Points:
        # by identity first (the walker gives the accesses of a block one loops tuple): hashing
        # the loops hashes every expression in them
        hit = self.points_by_id.get(id(loops))
        if hit is not None and hit[0] is loops and hit[1] == key and hit[2] == max_iters and hit[3] == max_points:
            return hit[4]
        k = (key, loops)
        pts = self.points.get(k)
        if pts is None:
            varying = {lp.iter_symbol for lp in loops} | {lp.var for lp in loops if lp.var}
            pts = self.points[k] = stack(self._points(loops, 0, env, max_iters, [max_points]), n, varying)
        self.points_by_id[id(loops)] = (loops, key, max_iters, max_points, pts)
        return pts

    def _points(self, loops, depth: int, env: dict, max_iters: int, budget: list[int]) -> list[tuple[dict, float]]:
        """`iterations` of loops[depth:] as a list, with each loop's samples in a given
        environment made once per kernel: loop nests that share their outer loops (and so the
        outer samples' environments, the same objects) share the inner loops' samples too. The
        budget is spent in order: a level's samples, cut to what is left of it, then each one's
        inner loops."""
        if depth == len(loops):
            return [(env, 1.0)]
        loop = loops[depth]
        k = (id(loop), id(env), max_iters)
        hit = self.levels.get(k)
        if hit is None or hit[0] is not loop or hit[1] is not env:
            hit = self.levels[k] = (loop, env) + _level(loop, env, max_iters)
        if hit[2] is not None:   # no closed form: one point with the loop's initial value
            return self._points(loops, depth + 1, hit[2], max_iters, budget)
        full, trips, per_block = hit[3], hit[4], hit[5]
        left = budget[0]
        if left <= 0 or not full:
            return []
        sampled = full if len(full) <= left else full[:left]
        budget[0] = left - len(sampled)
        weight = (trips / len(sampled) if trips and trips > len(sampled) else 1.0) * per_block
        if depth + 1 == len(loops):
            return [(env2, 1.0 * weight) for env2 in sampled]
        inner, starved = [], 0
        for env2 in sampled:
            pts = self._points(loops, depth + 1, env2, max_iters, budget)
            if not pts and budget[0] <= 0:
                starved += 1        # left without points by the budget, not by its own trip counts
            inner.append(pts)
        iterations = (trips if trips and trips > len(sampled) else len(sampled)) * per_block
        if trips and trips > len(sampled):
            factor = _inner_work_factor(loops, depth, env, sampled, trips)
            weight, iterations = weight * factor, iterations * factor
        return _spread(inner, weight, iterations, starved)

    def mask(self, guards, pts_key, pts: Points) -> np.ndarray:
        """stacked_mask, built guard by guard on the mask of the enclosing guards (nested ifs
        share their outer conditions, so each is evaluated once). Shared: do not modify."""
        hit = self.masks_by_id.get((id(guards), id(pts)))
        if hit is not None and hit[0] is guards and hit[1] is pts and hit[2] == pts_key:
            return hit[3]
        k = (guards, pts_key)
        m = self.masks.get(k)
        if m is None:
            if guards:
                m = self.mask(guards[:-1], pts_key, pts)
                v = _guard_value(guards[-1], pts.env, pts.memo)
                if v is not None:
                    m = m & _truth(v)   # v is a scalar or broadcasts to m
            else:
                m = stacked_mask((), pts)
            self.masks[k] = m
        self.masks_by_id[(id(guards), id(pts))] = (guards, pts, pts_key, m)
        return m


# ndarray.any/sum/max and np.any go through numpy's Python wrappers (a microsecond a call);
# the ufunc reductions they end in give the same values and dtypes. Weighted sums of 1-D vectors
# are `w.dot(x)`, not `w @ x`: matmul's gufunc set-up costs about what the dot does, and both
# end in the same 1-D dot loop (the same bits)
_any = np.logical_or.reduce
_sum = np.add.reduce
_max = np.maximum.reduce

_SENTINEL = np.iinfo(np.int64).max   # sorts after every address; np.iinfo costs microseconds a call


def _distinct_per_row(values: np.ndarray, valid: np.ndarray) -> np.ndarray:
    sentinel = _SENTINEL
    v = np.where(valid, values, sentinel)
    v.sort(axis=1)
    new = np.empty(v.shape, dtype=bool)
    new[:, 0] = True
    np.not_equal(v[:, 1:], v[:, :-1], out=new[:, 1:])
    new &= v != sentinel
    return _sum(new, axis=1)


def _warps(x: np.ndarray, n: int) -> np.ndarray:
    pad = (-n) % 32
    if pad:
        x = np.concatenate([x, np.zeros(pad, dtype=x.dtype)])
    return x.reshape(-1, 32)


def global_sectors(addr: np.ndarray, active: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per warp: requests (0/1), sectors touched, and the ideal sector count."""
    size = max(1, size)
    n = addr.shape[0]
    a = _warps(addr.astype(np.int64, copy=False), n)
    m = _warps(active, n)
    if _lanes is not None and size <= 32:
        out = np.empty((3, a.shape[0]))
        _lanes.global_sectors(a.reshape(-1), m.reshape(-1).view(np.uint8), size, out[0], out[1], out[2])
        return out[0], out[1], out[2]
    return _global_sectors(a, m, size)


def _global_sectors(a: np.ndarray, m: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """global_sectors in numpy, on (warps, 32) addresses and active lanes (the C loops' reference)."""
    first = a // 32
    if size == 1 or (32 % size == 0 and not _any(a & (size - 1), axis=None)):
        # naturally aligned elements no wider than a sector sit in one sector each (the usual
        # case): the general count below would see every lane's sector twice
        sectors = _distinct_per_row(first, m)
    elif size <= 32:
        # an element no wider than a sector sits in its first sector and at most one more
        last = (a + size - 1) // 32
        sectors = _distinct_per_row(np.concatenate([first, last], axis=1), np.concatenate([m, m], axis=1))
    else:
        sectors = _sector_union(first, (a + size - 1) // 32, m)
    distinct_elems = _distinct_per_row(a, m)
    ideal = np.ceil(distinct_elems * size / 32.0)
    requests = _any(m, axis=1).astype(np.float64)
    return requests, sectors.astype(np.float64), ideal


def _sector_union(first: np.ndarray, last: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per row: how many sectors the active lanes' spans first..last cover together (elements
    wider than a sector cover every sector between; counted from the spans, so a 1 MB struct
    costs what a float4 does)."""
    far = np.int64(1) << 62
    order = np.argsort(np.where(m, first, far), axis=1, kind="stable")   # idle lanes last
    f = np.take_along_axis(first, order, axis=1)
    last = np.take_along_axis(np.where(m, last, -far), order, axis=1)
    on = np.take_along_axis(m, order, axis=1)
    # sectors not covered by an earlier span (in order of first sector): from past the furthest
    # sector reached so far to this span's last
    reach = np.maximum.accumulate(last, axis=1)
    before = np.concatenate([np.full((len(f), 1), -far), reach[:, :-1]], axis=1)
    new = np.maximum(0, last - np.maximum(f, before + 1) + 1)
    return np.where(on, new, 0).sum(axis=1)


_SHARED_SIZES = (1, 2, 4, 8, 16)   # the widths of one shared-memory instruction (LDS/STS)


def shared_wavefronts(addr: np.ndarray, active: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per warp: requests (0/1), wavefronts, and the conflict-free wavefront count.

    An access of another width (a 12-byte float3, a 32-byte double4) is several instructions:
    the widest that divides it, each at its offset; their wavefronts add up."""
    size = max(1, size)
    n = addr.shape[0]
    a = _warps(addr.astype(np.int64, copy=False), n)
    m = _warps(active, n)
    if size in _SHARED_SIZES:
        return _shared_piece(a, m, size)
    piece = next(p for p in (16, 8, 4, 2, 1) if size % p == 0)
    pieces = size // piece
    # pieces 128 bytes apart meet the same banks in the same way: one of each residue is counted,
    # times how many there are (a struct of a megabyte costs what 128 bytes of it do)
    period = 128 // piece
    waves = ideal = 0.0
    for k in range(min(pieces, period)):
        requests, w, i = _shared_piece(a + k * piece, m, piece)
        times = len(range(k, pieces, period))
        waves = waves + times * w
        ideal = ideal + times * i
    return requests, waves, ideal


def _shared_piece(a: np.ndarray, m: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if _lanes is not None:
        out = np.empty((3, a.shape[0]))
        _lanes.shared_wavefronts(a.reshape(-1), m.reshape(-1).view(np.uint8), size, out[0], out[1], out[2])
        return out[0], out[1], out[2]
    return _shared_wavefronts(a, m, size)


def _shared_wavefronts(a: np.ndarray, m: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """shared_wavefronts in numpy for one instruction's width, on (warps, 32) addresses and
    active lanes (the C loops' reference: _lanes.shared_wavefronts says what is counted)."""
    k = max(1, size // 4)                # words a lane touches
    lanes = 32 if size <= 4 else 128 // size    # lanes of one phase
    unit = 32 if size <= 8 else 16       # lanes whose phases may go in one pass
    w = a.shape[0]
    units = 32 // unit
    word0 = a // 4
    words = word0[:, :, None] if k == 1 else np.stack([word0 + j for j in range(k)], axis=2)   # (w, 32, k)
    valid = np.repeat(m[:, :, None], k, axis=2)
    phase_max, _ = _bank_counts(words, valid, lanes)                 # (w, phases)
    per_unit = phase_max.reshape(w, units, unit // lanes)
    wavefronts = per_unit.sum(axis=2)
    ideal = (per_unit > 0).sum(axis=2)
    if lanes < unit:
        _, group_words = _bank_counts(words, valid, 8)               # (w, 4)
        unit_max, _ = _bank_counts(words, valid, unit)               # (w, units)
        spread = group_words.reshape(w, units, unit // 8).sum(axis=2) * 4
        one_pass = (spread > 0) & (spread <= 128)
        wavefronts = np.where(one_pass, unit_max, wavefronts)
        ideal = np.where(one_pass, 1, ideal)
    requests = _any(m, axis=1).astype(np.float64)
    return requests, wavefronts.sum(axis=1).astype(np.float64), ideal.sum(axis=1).astype(np.float64)


def _bank_counts(words: np.ndarray, valid: np.ndarray, lanes: int) -> tuple[np.ndarray, np.ndarray]:
    """Per warp and run of `lanes` lanes: the most distinct words in one bank, and the distinct
    words; words and valid are (warps, 32, words per lane)."""
    w = words.shape[0]
    rows = words.reshape(w * (32 // lanes), -1)
    vrows = valid.reshape(rows.shape)
    v = np.where(vrows, rows, _SENTINEL)
    v.sort(axis=1)
    new = np.ones(v.shape, dtype=bool)
    new[:, 1:] = v[:, 1:] != v[:, :-1]
    new &= v != _SENTINEL
    banks = np.where(new, v % 32, 0)
    row_ids = np.repeat(np.arange(rows.shape[0]), rows.shape[1]).reshape(rows.shape)
    counts = np.bincount((row_ids * 32 + banks)[new], minlength=rows.shape[0] * 32).reshape(rows.shape[0], 32)
    return _max(counts, axis=1).reshape(w, -1), _sum(new, axis=1).reshape(w, -1)


def estimate(access: Access, launch: Launch, *, max_iters: int = 8, max_threads: int = MAX_THREADS,
             max_points: int = 64, defaults: Mapping[str, int | float] | None = None,
             cache: PointCache | None = None, needed: set[str] | None = None,
             own: set[str] | None = None) -> Estimate | None:
    """Sectors (global) or wavefronts (shared) per block for one access, or None if its
    address cannot be evaluated (data-dependent or unknown index).

    `needed`: the symbols of every access of the kernel, so that all of them bind the same
    parameters and share the cache's sampled iterations."""
    if access.space not in ("global", "shared"):
        return None
    if S.is_unknown(access.address):
        return None
    if not access.issued:     # folded into a neighbour's wider access
        return Estimate(0.0, 0.0, 0.0, 0.0, ())
    base = thread_env(launch, max_threads)
    n = base["threadIdx.x"].shape[0]
    own = access_symbols(access) if needed is None or own is None else own
    env, assumed = bind_params(base, launch.args, needed if needed is not None else own, defaults)
    if needed is not None:
        assumed = tuple(a for a in assumed if a in own)
    model = global_sectors if access.space == "global" else shared_wavefronts
    cache = cache or PointCache()
    with np.errstate(all="ignore"):
        return _estimate(access, env, n, launch, model, cache, max_iters, max_points, assumed)


def access_symbols(access, memo: dict | None = None) -> set[str]:
    """Symbols an access (or a branch: cond instead of address; or a barrier: its guards and
    loops only) needs bound.

    memo: a dict kept across the accesses of one kernel, so that the guard expressions and
    loops they share (the same objects) are looked at once (S.symbols hashes its argument)."""
    main = access.address if hasattr(access, "address") else getattr(access, "cond", None)
    needed = set(S.symbols(main)) if main is not None else set()
    if memo is None:
        for g in access.guards:
            needed |= S.symbols(g)
        for lp in access.loops:
            needed |= _loop_symbols(lp)
        return needed
    for item in access.guards + access.loops:
        got = memo.get(id(item))
        if got is None or got[0] is not item:
            got = memo[id(item)] = (item, _loop_symbols(item) if isinstance(item, Loop) else S.symbols(item))
        needed |= got[1]
    return needed


def _loop_symbols(lp: Loop) -> set[str]:
    return S.symbols(lp.init) | (S.symbols(lp.cond) if lp.cond else set()) | (
        S.symbols(lp.step[1]) if lp.step else set())


def estimate_many(accesses, launch: Launch, *, max_iters: int = 8, max_threads: int = MAX_THREADS,
                  max_points: int = 64, defaults: Mapping[str, int | float] | None = None,
                  cache: PointCache | None = None, needed: set[str] | None = None,
                  owns: list[set[str]] | None = None) -> list[Estimate | None]:
    """`estimate` for every access of a kernel, all bound like `needed`, with the same results.

    Identical accesses (a load and a store of `y[i]`) are modelled once, and every access's
    warps of one memory space and element size go through one model call: the per-request
    counts are computed warp by warp, so batching changes nothing but the numpy overhead."""
    if needed is None:
        return [estimate(a, launch, max_iters=max_iters, max_threads=max_threads, max_points=max_points,
                         defaults=defaults, cache=cache) for a in accesses]
    batch = EstimateBatch()
    out = batch.add(accesses, launch, max_iters=max_iters, max_threads=max_threads, max_points=max_points,
                    defaults=defaults, cache=cache, needed=needed, owns=owns)
    batch.run()
    return out


class EstimateBatch:
    """`estimate_many` for several kernels (a file's) with one model call per memory space and
    element size for all of them: `add` each kernel's accesses, then `run` fills the lists."""

    def __init__(self) -> None:
        self.groups: dict = {}      # (space, size) -> [(out, index, addr, mask, pts, assumed, mask2d, cache, scale)]
        self.dups: list = []        # (out, index, index of the same access)

    def add(self, accesses, launch: Launch, *, max_iters: int = 8, max_threads: int = MAX_THREADS,
            max_points: int = 64, defaults: Mapping[str, int | float] | None = None,
            cache: PointCache | None = None, needed: set[str], owns: list[set[str]] | None = None,
            ) -> list[Estimate | None]:
        accesses = list(accesses)
        out: list[Estimate | None] = [None] * len(accesses)
        cache = cache or PointCache()
        owns = owns if owns is not None else [access_symbols(a) for a in accesses]
        env, assumed_all, key = cache.bind(launch, needed, defaults, max_threads)
        n = env["threadIdx.x"].shape[0]
        scale = launch.threads / n if n < launch.threads else 1.0   # threads we did not simulate behave alike
        seen: dict = {}
        groups = self.groups
        with np.errstate(all="ignore"):
            for i, a in enumerate(accesses):
                if a.space not in ("global", "shared") or S.is_unknown(a.address):
                    continue
                if not a.issued:     # folded into a neighbour's wider access: no instruction of its own
                    out[i] = Estimate(0.0, 0.0, 0.0, 0.0, ())
                    continue
                ident = (a.space, a.elem_size, a.address, a.loops, a.guards)
                first = seen.get(ident)
                if first is not None:
                    self.dups.append((out, i, first))
                    continue
                seen[ident] = i
                own = owns[i]
                assumed = tuple(x for x in assumed_all if x in own)
                pts = cache.stacked(a.loops, env, n, max_iters, max_points, key)
                if not pts.count:
                    out[i] = Estimate(0.0, 0.0, 0.0, 0.0, assumed)
                    continue
                addr = S.evaluate(a.address, pts.env, pts.memo)
                if addr is None:
                    continue
                addr = np.asarray(addr)
                if addr.dtype.kind not in "iub":
                    continue
                addr = _full(addr, pts.count, n, np.int64).reshape(-1)
                pkey = (key, a.loops)
                mask2d = cache.mask(a.guards, pkey, pts)
                groups.setdefault((a.space, a.elem_size), []).append(
                    (out, i, addr, mask2d.reshape(-1), pts, assumed, mask2d, cache, scale))
        return out

    def run(self) -> None:
        with np.errstate(all="ignore"):
            for (space, size), items in self.groups.items():
                model = global_sectors if space == "global" else shared_wavefronts
                if len(items) == 1:
                    r, u, ii = model(items[0][2], items[0][3], size)
                else:
                    r, u, ii = model(np.concatenate([it[2] for it in items]), np.concatenate([it[3] for it in items]),
                                     size)
                o = 0
                for out, i, addr, mask, pts, assumed, mask2d, cache, scale in items:
                    rows = addr.shape[0] // 32
                    sl = slice(o, o + rows)
                    o += rows
                    w = pts.warp_weights
                    req = float(w.dot(r[sl]))
                    if req == 0:
                        out[i] = Estimate(0.0, 0.0, 0.0, 0.0, assumed)
                        continue
                    lanes = cache.lane_weight(pts, mask2d)
                    out[i] = Estimate(req * scale, float(w.dot(u[sl])) * scale, float(w.dot(ii[sl])) * scale, lanes / req,
                                      assumed)
        for out, i, first in self.dups:
            out[i] = out[first]
        self.groups, self.dups = {}, []


def warp_requests(access: Access, launch: Launch, *, cache: PointCache, needed: set[str],
                  defaults: Mapping[str, int | float] | None = None, max_iters: int = 8,
                  max_threads: int = MAX_THREADS, max_points: int = 64) -> float:
    """Warp-level requests per block that an access issues, whatever its address: the warps
    with an active lane, over the sampled iterations with their weights (what `Estimate.requests`
    counts). For an access whose address is data-dependent (`estimate` gives None: a gather, a
    histogram's atomics) this is still known, and it is what such an access costs most."""
    if not getattr(access, "issued", True):     # (a barrier has loops and guards too, no such flag)
        return 0.0
    env, _, key = cache.bind(launch, needed, defaults, max_threads)
    n = env["threadIdx.x"].shape[0]
    with np.errstate(all="ignore"):
        pts = cache.stacked(access.loops, env, n, max_iters, max_points, key)
        if not pts.count:
            return 0.0
        mask = cache.mask(access.guards, (key, access.loops), pts)
        warps = _any(mask.reshape(pts.count, n // 32, 32), axis=2)
        req = float(pts.weights.dot(_sum(warps, axis=1)))
    return req * (launch.threads / n if n < launch.threads else 1.0)


def _full(a: np.ndarray, count: int, n: int, dtype=None) -> np.ndarray:
    """a (a scalar, (n,), (P, 1) or (P, n) array) broadcast to (P, n), as `dtype` if given; a
    copy where it is not that already (np.broadcast_to is Python code and costs more than the copy)."""
    if a.shape == (count, n):
        return a if dtype is None else a.astype(dtype, copy=False)
    out = np.empty((count, n), dtype=a.dtype if dtype is None else dtype)
    out[...] = a
    return out


def _points_key(env: Mapping) -> tuple:
    return tuple(sorted((k, v) for k, v in env.items() if not isinstance(v, np.ndarray) and "." not in k))


def _estimate(access, env, n, launch, model, cache, max_iters, max_points, assumed):
    # points depend on the loops and on the bound parameter values
    key = _points_key(env)
    pts = cache.stacked(access.loops, env, n, max_iters, max_points, key)
    if not pts.count:
        return Estimate(0.0, 0.0, 0.0, 0.0, assumed)
    addr = S.evaluate(access.address, pts.env, pts.memo)
    if addr is None:
        return None
    addr = np.asarray(addr)
    if addr.dtype.kind not in "iub":
        return None
    addr = _full(addr, pts.count, n, np.int64).reshape(-1)
    mask = cache.mask(access.guards, (key, access.loops), pts).reshape(-1)
    r, u, i = model(addr, mask, access.elem_size)
    w = pts.weights.repeat(n // 32)
    req = float(w.dot(r))
    if req == 0:
        return Estimate(0.0, 0.0, 0.0, 0.0, assumed)
    lanes = float(pts.weights.dot(_sum(mask.reshape(pts.count, n), axis=1)))
    scale = launch.threads / n if n < launch.threads else 1.0   # threads we did not simulate behave alike
    return Estimate(req * scale, float(w.dot(u)) * scale, float(w.dot(i)) * scale, lanes / req, assumed)


def is_divergent(cond: S.Expr, loops: tuple[Loop, ...], guards: tuple[S.Expr, ...], launch: Launch,
                 max_iters: int = 4, cache: PointCache | None = None, needed: set[str] | None = None,
                 defaults: Mapping[str, int | float] | None = None) -> bool | None:
    """Whether a condition splits some warp (True), never does (False), or we cannot tell (None)."""
    given_needed = needed is not None
    if needed is None:
        needed = set(S.symbols(cond))
        for g in guards:
            needed |= S.symbols(g)
        for lp in loops:
            needed |= _loop_symbols(lp)
    cache = cache or PointCache()
    if given_needed:
        env, _, key = cache.bind(launch, needed, defaults, MAX_THREADS)
    else:   # a set of its own each call: bound by value, as `estimate` does
        env, _ = bind_params(thread_env(launch, MAX_THREADS), launch.args, needed, defaults)
        key = _points_key(env)
    n = env["threadIdx.x"].shape[0]
    with np.errstate(all="ignore"):
        got = _condition_values(cond, loops, env, n, key, cache, max_iters)
        if got is None:
            return None
        pts, vb = got
        if _lanes is not None and (vb.ndim == 0 or vb.shape in ((n,), (pts.count, 1), (1, n), (pts.count, n))):
            if vb.ndim == 0 or vb.shape == (pts.count, 1):
                return False   # the same in every lane of a point: no warp splits
            m = cache.mask(guards, (key, loops), pts).reshape(pts.count, n)
            return _lanes.split_warp(vb.reshape(-1, n).view(np.uint8), m.view(np.uint8))
        values = _full(vb, pts.count, n).reshape(-1, 32)
        m = cache.mask(guards, (key, loops), pts).reshape(-1, 32)
        any_true = _any(values & m, axis=1)
        any_false = _any(~values & m, axis=1)
        return bool(_any(any_true & any_false, axis=None))


def _condition_values(cond: S.Expr, loops, env, n: int, key, cache: PointCache, max_iters: int):
    """(the sampled points of a branch's loops, its condition's truth there), or None where there
    is no point or no value."""
    pts = cache.stacked(loops, env, n, max_iters, 64, key)
    if not pts.count:
        return None
    v = S.evaluate(cond, pts.env, pts.memo)
    return None if v is None else (pts, _truth(v))


# How a branch's body runs in a block, over the sampled iterations with their weights: `passes`,
# the warps with a lane that takes it; `fewest`, the warps its lanes would fill (ceil(lanes / 32));
# `leaders_only`, no warp ever has more than one lane in it (a warp's leader); `warps`, the warps
# that ever take it (not weighted by iterations). (collections' namedtuple: the compiled build keeps
# it a tuple subclass, as it does not a typing.NamedTuple's annotations.)
BranchPasses = collections.namedtuple("BranchPasses", ("passes", "fewest", "leaders_only", "warps"))


def branch_warp_passes(cond: S.Expr, loops: tuple[Loop, ...], guards: tuple[S.Expr, ...], launch: Launch, *,
                       cache: PointCache, needed: set[str], defaults: Mapping[str, int | float] | None = None,
                       max_iters: int = 4) -> BranchPasses | None:
    """The warp passes a branch's body runs in per block against the fewest its lanes need, and
    which lanes take it (BranchPasses); None where the condition cannot be evaluated. A reduction
    tree's `if (tid < s)` needs no more passes than its lanes (whole warps drop out, then one warp
    is left); `if (tid % (2 * s) == 0)` keeps every warp on for a few lanes each."""
    env, _, key = cache.bind(launch, needed, defaults, MAX_THREADS)
    n = env["threadIdx.x"].shape[0]
    with np.errstate(all="ignore"):
        got = _condition_values(cond, loops, env, n, key, cache, max_iters)
        if got is None:
            return None
        pts, values = got
        on = _full(values, pts.count, n) & cache.mask(guards, (key, loops), pts).reshape(pts.count, n)
        per_warp = _sum(on.reshape(pts.count, n // 32, 32), axis=2)
        taken = per_warp > 0
        fewest = np.ceil(_sum(on, axis=1) / 32.0)
    return BranchPasses(float(pts.weights.dot(_sum(taken, axis=1))), float(pts.weights.dot(fewest)),
                        bool(per_warp.max(initial=0) <= 1), float(_sum(_any(taken, axis=0))))
