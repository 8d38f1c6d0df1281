"""(source, kernel, launch, problem sizes, arch) -> one row of named features.

Everything here is static: the analyzer's estimates for the one launch, the
resources (ptxas when asked for and available, else the analyzer's estimate),
the launch shape and the roofline time the task's bytes and flops imply.
Features that could not be computed are NaN (XGBoost treats them as missing);
`Features.unresolved` says in words what was unknown.

The schema is versioned: a saved model records SCHEMA_VERSION and the names,
and refuses to load against a different schema.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from analyzer import models
from analyzer import symbolic as S
from analyzer.directives import device_macros
from analyzer.lint import FileResult, LaunchSpec, LintSettings, lint_source, split_name_expression
from analyzer.parse import compact_name
from analyzer.resources import REGISTER_FEATURES, register_features

SCHEMA_VERSION = 7

# Features that only ptxas (or the measured row, which carries the same compiler's
# numbers) gives. Training shows the model rows with and without them.
PTXAS_FEATURES = ("regs_ptxas", "spill_bytes", "stack_bytes", "occupancy_ptxas", "log_spill_bytes")

FINDING_CODES = ("GM101", "GM102", "GM103", "GM104", "GM105", "SM201", "DV401", "OC601", "OC603", "FP501")
LIMITERS = ("warps", "blocks", "registers", "shared memory")

FEATURE_NAMES: tuple[str, ...] = (
    # problem and roofline
    "log_task_bytes", "log_task_flops", "log_intensity", "log_roofline_s", "bytes_known",
    # launch shape
    "threads", "block_x", "block_y", "log_blocks", "warps_per_block", "waves", "wave_tail",
    "log_total_threads", "threads_per_elem",
    # global memory
    "gld_sectors_per_req", "gld_ideal_per_req", "gld_efficiency", "gst_sectors_per_req", "gst_ideal_per_req",
    "gst_efficiency", "log_gld_requests", "log_gst_requests", "log_atomic_requests", "atomic_share",
    "log_traffic_bytes", "traffic_over_task", "log_traffic_roofline_s", "log_global_req_per_thread",
    "max_elem_size", "mean_elem_size", "active_lanes",
    # accesses whose address is data-dependent: how often they run is still known
    "log_unknown_gld_requests", "log_unknown_gst_requests", "log_unknown_shared_requests", "log_atomic_ops",
    # shared memory
    "shld_wavefronts_per_req", "shst_wavefronts_per_req", "shared_ways", "log_shared_requests",
    "log_shared_req_per_thread", "shared_bytes", "log_shared_bytes",
    # control and arithmetic
    "barriers", "barriers_in_loops", "branches", "divergent_branches", "loops", "max_loop_depth",
    "flops_per_thread", "log_flops_static", "uses_double", "float_literals",
    # tensor cores: the flops of the kernel's wmma products (mma_sync) over its loops' iterations
    "log_tensor_flops", "tensor_share",
    # resources and occupancy
    "regs_static", "occupancy_static", "limiter_warps", "limiter_blocks", "limiter_registers", "limiter_smem",
    # what the static register estimate weighs (analyzer.resources.register_features): its weights are
    # fitted to ptxas's counts; the counts themselves tell the trees more about the code than one sum
    *(f"code_{f}" for f in REGISTER_FEATURES),
    "regs_ptxas", "spill_bytes", "log_spill_bytes", "stack_bytes", "occupancy_ptxas",
    # the slowest pipe's time (models.time_estimate): the base of the log_estimate target
    "log_time_estimate_s",
    # each pipe's time over the estimate (log10; 0 for the slowest): which pipe binds, and how near
    # the others come. Trees split on one feature at a time, so the ratios are given, not left to find.
    *(f"pipe_{p}" for p in models.PIPES),
    # what the pipes leave out, per SM-clock of the estimate (log10): rounds of a warp's global
    # requests times the waves (latency: each round waits for memory unless other warps cover it),
    # and warps arriving at barriers
    "request_rounds_per_clk", "log_barrier_warps", "barrier_warps_per_clk",
    # requests of accesses under a data-dependent condition (left out of the estimate: they may not run)
    "log_data_guarded_requests",
    # how much of this is known
    "accesses", "unknown_accesses", "unknown_share", "assumed_params",
    # findings
    *(f"n_{c}" for c in FINDING_CODES),
)
_NANS = (math.nan,) * len(FEATURE_NAMES)   # Features.vector's default for each name


@dataclass(frozen=True)
class Problem:
    """What the caller knows of the task: bytes it must move, flops it must do (None: unknown)."""

    bytes: float | None = None
    flops: float | None = None


@dataclass
class Features:
    values: dict[str, float]
    unresolved: list[str] = field(default_factory=list)
    lint: FileResult | None = None
    roofline_s: float = math.nan          # the bound the target may be relative to

    def vector(self) -> np.ndarray:
        # fromiter: np.array would work out the dtype of each of the ~90 values first
        return np.fromiter(map(self.values.get, FEATURE_NAMES, _NANS), dtype=np.float64, count=len(FEATURE_NAMES))


class FeatureError(ValueError):
    """The kernel cannot be analyzed at all (not found, did not parse)."""


class LaunchError(FeatureError):
    """A launch configuration CUDA would refuse: nothing to predict."""


_SETTINGS: dict[tuple[str, bool], LintSettings] = {}


def _settings(arch: str, ptxas: bool) -> LintSettings:
    # frozen, so one per (arch, ptxas) serves every call (making one with its Options costs ~4 us)
    s = _SETTINGS.get((arch, ptxas))
    if s is None:
        s = _SETTINGS[(arch, ptxas)] = LintSettings(arch=arch, ptxas=ptxas)
    return s


def check_launch(grid, block, smem: int = 0) -> None:
    """CUDA's limits on a launch (all compute capabilities we model): LaunchError if it breaks one."""
    problem = models.launch_dims_problem("block", block) or models.launch_dims_problem("grid", grid)
    if problem:
        raise LaunchError(problem)
    if not isinstance(smem, (int, np.integer)) or isinstance(smem, bool) or not 0 <= smem < (1 << 32):
        raise LaunchError(f"dynamic shared memory {smem!r}: expected 0..2^32-1 bytes")


def _log(x: float | None) -> float:
    return math.log10(x) if x is not None and x > 0 and math.isfinite(x) else math.nan


def _log1(x: float) -> float:
    if isinstance(x, int):      # an int beyond float's range still has a logarithm
        return math.log10(1 + max(0, x))
    return math.log10(1.0 + max(0.0, x))


def context_of(lint: FileResult, kernel: str):
    """The lint's context of the kernel a name expression names: `k<float>` is an explicit
    specialization of that name where the file has one, else the template `k`; None if neither."""
    base, _ = split_name_expression(kernel)
    if "<" in kernel:
        full = compact_name(kernel)
        ctx = next((c for c in lint.contexts if compact_name(c.kernel.name) == full), None)
        if ctx is not None:
            return ctx
    return next((c for c in lint.contexts if c.kernel.name == base), None)


def extract(source: str, kernel: str, *, grid: tuple[int, int, int], block: tuple[int, int, int], smem: int = 0,
            args: Mapping[str, int | float] | None = None, problem: Problem | None = None, arch: str = "sm_90",
            ptxas: bool = False, resources: Mapping[str, float] | None = None, path: str = "<candidate>",
            lint: FileResult | None = None) -> Features:
    """One feature row for one launch of `kernel` (a name or a template name expression).

    resources: registers / spill_stores / spill_loads / stack_bytes known from elsewhere (a measured
    corpus row carries the driver's registers and the ptxas log's spills): used instead of running ptxas.
    """
    check_launch(grid, block, smem)
    problem = problem or Problem()
    args = dict(args or {})
    settings = _settings(arch, bool(ptxas))
    if lint is None:
        # annotations=False: the launch is the task's, whatever a candidate's comments say of it;
        # suppressions=False: its findings are what they are, whatever its comments ask to hide;
        # closed macros: it is compiled as it is, so `#ifdef NAME` of a name it does not define
        # is false (an `#if 0` or `#ifdef NEVER` branch is not what runs)
        lint = lint_source(source, path, settings=settings, kernels=[kernel],
                           launches={kernel: LaunchSpec(tuple(block), tuple(grid), smem, args)}, annotations=False,
                           suppressions=False, macros=device_macros(arch, closed=True))
    ctx = context_of(lint, kernel)
    summ = next((k for k in lint.kernels if k.name == ctx.kernel.name and k.line == ctx.kernel.line), None) \
        if ctx is not None else None
    if ctx is None or summ is None:
        raise FeatureError(f"kernel {kernel!r} not found in the source (or it did not parse)")
    a = models.arch(arch)
    v: dict[str, float] = {}
    unresolved: list[str] = []

    # ---- launch
    threads = block[0] * block[1] * block[2]
    blocks = grid[0] * grid[1] * grid[2]
    v["threads"] = threads
    v["block_x"], v["block_y"] = block[0], block[1]
    v["log_blocks"] = _log(blocks)
    v["warps_per_block"] = math.ceil(threads / 32)
    v["log_total_threads"] = _log(threads * blocks)

    # ---- resources and occupancy
    regs_static = _static_regs(ctx)
    for name, count in register_features(ctx.program, ctx.kernel, ctx.accesses.constants).items():
        v[f"code_{name}"] = count
    occ_static = models.occupancy(a, threads, int(regs_static), ctx.static_shared_bytes + ctx.launch_smem)
    v["regs_static"] = regs_static
    v["occupancy_static"] = occ_static.occupancy
    res = dict(resources or {})
    if not res and ctx.resources.measured:
        r = ctx.resources
        res = {"registers": r.registers, "spill_stores": r.spill_stores, "spill_loads": r.spill_loads,
               "stack_bytes": r.stack_frame}
    if res.get("registers") is not None and res["registers"] > 0:
        regs = float(res["registers"])
        spills = max(0.0, float(res.get("spill_stores") or 0)) + max(0.0, float(res.get("spill_loads") or 0))
        v["regs_ptxas"] = regs
        v["spill_bytes"] = spills
        v["log_spill_bytes"] = _log1(spills)
        v["stack_bytes"] = max(0.0, float(res.get("stack_bytes") or 0))
        occ = models.occupancy(a, threads, int(regs), ctx.static_shared_bytes + ctx.launch_smem)
        v["occupancy_ptxas"] = occ.occupancy
    elif ptxas:
        unresolved.append(f"ptxas gave no figures for {kernel} (a template kernel is not instantiated by the "
                          "analyzer's ptxas run, or no compiler): registers and spills are static estimates")
    else:
        unresolved.append("registers and spills are static estimates (no ptxas)")
    # limiter and waves come from the static estimate, so a row means the same with or without ptxas
    occ = occ_static
    v["limiter_warps"] = float(occ.limiter == "warps")
    v["limiter_blocks"] = float(occ.limiter == "blocks")
    v["limiter_registers"] = float(occ.limiter == "registers")
    v["limiter_smem"] = float(occ.limiter == "shared memory")
    resident = max(1, occ.blocks_per_sm) * a.sm_count
    v["waves"] = blocks / resident
    v["wave_tail"] = (blocks % resident) / resident if blocks > resident else 0.0

    # ---- accesses
    acc = ctx.accesses.accesses
    est = ctx.estimates
    # the estimated accesses by space and kind, each list in the accesses' order (one pass)
    gl, gs, ga, sl, ss = [], [], [], [], []
    for x, e in zip(acc, est):
        if e is None:
            continue
        if x.space == "global":
            (gl if x.kind == "load" else gs if x.kind == "store" else ga if x.kind == "atomic" else []).append((x, e))
        elif x.space == "shared":
            (sl if x.kind == "load" else ss if x.kind in ("store", "atomic") else []).append((x, e))

    def per_req(pairs):
        req = sum(e.requests for _, e in pairs)
        if not req:
            return math.nan, math.nan, 0.0
        return sum(e.units for _, e in pairs) / req, sum(e.ideal_units for _, e in pairs) / req, req
    g_sec, g_ideal, g_req = per_req(gl)
    s_sec, s_ideal, s_req = per_req(gs + ga)
    v["gld_sectors_per_req"], v["gld_ideal_per_req"] = g_sec, g_ideal
    v["gld_efficiency"] = g_ideal / g_sec if g_req and g_sec else math.nan
    v["gst_sectors_per_req"], v["gst_ideal_per_req"] = s_sec, s_ideal
    v["gst_efficiency"] = s_ideal / s_sec if s_req and s_sec else math.nan
    a_req = sum(e.requests for _, e in ga)
    v["log_gld_requests"] = _log1(g_req * blocks)
    v["log_gst_requests"] = _log1(s_req * blocks)
    v["log_atomic_requests"] = _log1(a_req * blocks)
    v["atomic_share"] = a_req / (g_req + s_req) if (g_req + s_req) else 0.0
    traffic = 32.0 * blocks * sum(e.units for _, e in gl + gs + ga)
    v["log_traffic_bytes"] = _log1(traffic)
    v["log_traffic_roofline_s"] = _log(traffic / a.dram_bytes_per_s) if traffic else math.nan
    v["log_global_req_per_thread"] = _log1((g_req + s_req) * 32.0 / max(1, threads))
    gsizes = [x.elem_size for x in acc if x.space == "global" and x.elem_size]
    v["max_elem_size"] = max(gsizes) if gsizes else math.nan
    v["mean_elem_size"] = sum(gsizes) / len(gsizes) if gsizes else math.nan   # small ints: exact, as np.mean
    lanes = [(e.active_lanes, e.requests) for _, e in gl + gs + ga if e.requests]
    v["active_lanes"] = sum(l * r for l, r in lanes) / sum(r for _, r in lanes) if lanes else math.nan
    sh_l, _, sh_lreq = per_req(sl)
    sh_s, _, sh_sreq = per_req(ss)
    v["shld_wavefronts_per_req"], v["shst_wavefronts_per_req"] = sh_l, sh_s
    units = sum(e.units for _, e in sl + ss)
    ideal = sum(e.ideal_units for _, e in sl + ss)
    v["shared_ways"] = units / ideal if ideal else (1.0 if not (sl or ss) else math.nan)
    v["log_shared_requests"] = _log1((sh_lreq + sh_sreq) * blocks)
    v["log_shared_req_per_thread"] = _log1((sh_lreq + sh_sreq) * 32.0 / max(1, threads))
    unknown = [(x, r) for x, r in zip(acc, ctx.unknown_requests) if r]
    u_gl = sum(r for x, r in unknown if x.space == "global" and x.kind == "load")
    u_gs = sum(r for x, r in unknown if x.space == "global" and x.kind != "load")
    u_ga = sum(r for x, r in unknown if x.space == "global" and x.kind == "atomic")
    u_sh = sum(r for x, r in unknown if x.space == "shared")
    v["log_unknown_gld_requests"] = _log1(u_gl * blocks)
    v["log_unknown_gst_requests"] = _log1(u_gs * blocks)
    v["log_unknown_shared_requests"] = _log1(u_sh * blocks)
    # an unknown atomic's lanes: every lane (its guards are in the request count already)
    atomic_ops = blocks * (sum(e.active_lanes * e.requests for _, e in ga) + 32.0 * u_ga)
    v["log_atomic_ops"] = _log1(atomic_ops)
    # unknown global accesses at their ideal traffic (a lower bound, as the estimate is)
    traffic_all = traffic + blocks * 32.0 * sum(r * (x.elem_size or 4) for x, r in unknown if x.space == "global")
    # Accesses under a data-dependent condition (`if (count != 0) atomicAdd(...)`) may not run at
    # all: the estimate, a lower bound, leaves them out (the lane models count such a guard as
    # true); the model sees how many requests they are.
    guarded = [(x, e) for x, e in gl + gs + ga + sl + ss if any(S.has_load(g) for g in x.guards)]
    guarded_u = [(x, r) for x, r in unknown if any(S.has_load(g) for g in x.guards)]
    g_glob = [(x, e) for x, e in guarded if x.space == "global"]
    dg_traffic = 32.0 * (sum(e.units for _, e in g_glob)
                         + sum(r * (x.elem_size or 4) for x, r in guarded_u if x.space == "global"))
    dg_requests = (sum(e.requests for _, e in g_glob)
                   + sum(r for x, r in guarded_u if x.space == "global"))
    dg_wavefronts = (sum(e.units for x, e in guarded if x.space == "shared")
                     + sum(r for x, r in guarded_u if x.space == "shared"))
    dg_atomics = (sum(e.active_lanes * e.requests for x, e in g_glob if x.kind == "atomic")
                  + 32.0 * sum(r for x, r in guarded_u if x.space == "global" and x.kind == "atomic"))
    v["log_data_guarded_requests"] = _log1(blocks * (sum(e.requests for _, e in guarded)
                                                     + sum(r for _, r in guarded_u)))
    shared = ctx.static_shared_bytes + ctx.launch_smem
    v["shared_bytes"] = shared
    v["log_shared_bytes"] = _log1(shared)

    # ---- control flow and arithmetic
    ka = ctx.accesses
    v["barriers"] = len(ka.barriers)
    v["barriers_in_loops"] = sum(1 for b in ka.barriers if b.loops)
    barrier_warps = 0.0   # warps arriving at barriers per block, over the loops' iterations
    for b in ka.barriers[:16]:
        try:
            barrier_warps += ctx.warp_arrivals(b)
        except RecursionError:  # guards nested too deep to evaluate: that barrier is not counted
            pass
    tensor_macs = 0.0   # multiply-adds of a block's warps' mma_syncs, over the loops' iterations
    # products under the same loops and guards (an unrolled tile's, the same objects) run as often:
    # their warps are counted once for all of them
    sites: dict[tuple[int, int], list] = {}
    for m in ka.mmas:
        site = sites.setdefault((id(m.loops), id(m.guards)), [m, 0])
        site[1] += m.macs
    for m, macs in list(sites.values())[:16]:
        try:
            tensor_macs += ctx.warp_arrivals(m) * macs
        except RecursionError:  # guards nested too deep to evaluate: those products are not counted
            pass
    tensor_flops = 2.0 * tensor_macs * blocks
    v["branches"] = len(ka.branches)
    div = 0
    for b in ka.branches[:32]:   # a cap: each check evaluates the condition over sampled iterations
        try:
            div += bool(ctx.divergent(b))
        except RecursionError:  # a condition nested too deep to evaluate: that branch is not counted
            pass
    v["divergent_branches"] = div
    loops = {lp for x in acc for lp in x.loops} | {lp for b in ka.branches for lp in b.loops}
    v["loops"] = len(loops)
    v["max_loop_depth"] = max((len(x.loops) for x in acc), default=0)
    v["flops_per_thread"] = ka.flops_per_thread
    static_flops = ka.flops_per_thread * threads * blocks
    v["log_flops_static"] = _log1(static_flops)
    v["uses_double"] = float(ka.uses_double)
    v["float_literals"] = len(ka.float_literals)

    # ---- unknowns
    n_acc = sum(1 for x in acc if x.space in ("global", "shared"))
    v["accesses"] = n_acc
    v["unknown_accesses"] = summ.unknown_accesses
    v["unknown_share"] = summ.unknown_accesses / n_acc if n_acc else 0.0
    v["assumed_params"] = len(summ.assumed)
    if summ.unknown_accesses:
        unresolved.append(f"{summ.unknown_accesses} of {n_acc} memory accesses have data-dependent or unknown addresses")
    if summ.assumed:
        unresolved.append(f"parameters without a value (assumed {models.DEFAULT_PARAM_VALUE}): {', '.join(summ.assumed)}")

    # ---- findings
    counts: dict[str, int] = {}
    for f in lint.findings:
        if f.kernel == ctx.kernel.name:     # a finding over several accesses (a record's fields) counts each
            counts[f.code] = counts.get(f.code, 0) + f.estimate.get("accesses", 1)
    for code in FINDING_CODES:
        v[f"n_{code}"] = counts.get(code, 0)

    # ---- problem and roofline
    task_bytes, task_flops = problem.bytes, problem.flops
    v["bytes_known"] = float(task_bytes is not None and task_bytes > 0)
    if not task_bytes:
        unresolved.append("task bytes unknown: the roofline uses the analyzer's sector traffic (an upper bound)")
        task_bytes = traffic if traffic else None
    if task_flops is None:      # the kernel's own: its arithmetic operators and its tensor products
        task_flops, fp32_flops = static_flops + tensor_flops, static_flops
    else:   # the task's flops that the tensor cores do not do go through FP32 (a rounding's worth: none)
        fp32_flops = task_flops - tensor_flops
        fp32_flops = fp32_flops if fp32_flops > 1e-9 * task_flops else 0.0
    v["log_tensor_flops"] = _log1(tensor_flops)
    v["tensor_share"] = min(1.0, tensor_flops / task_flops) if task_flops else 0.0
    v["log_task_bytes"] = _log(task_bytes)
    v["log_task_flops"] = _log1(task_flops)
    v["log_intensity"] = _log(task_flops / task_bytes) if task_bytes and task_flops else math.nan
    roof = models.roofline_seconds(a, task_bytes or 0.0, fp32_flops, tensor_flops)
    pipes = models.pipe_times(
        a, task_bytes=task_bytes or 0.0, flops=fp32_flops, tensor_flops=tensor_flops,
        traffic_bytes=max(0.0, traffic_all - blocks * dg_traffic),
        global_requests=blocks * max(0.0, g_req + s_req + u_gl + u_gs - dg_requests),
        shared_wavefronts=blocks * max(0.0, units + u_sh - dg_wavefronts),
        atomic_ops=max(0.0, atomic_ops - blocks * dg_atomics))
    estimate_s = models.slowest_pipe_estimate(a, pipes)
    v["log_time_estimate_s"] = math.log10(estimate_s)
    for name, t in pipes.items():
        v[f"pipe_{name}"] = _log(t / estimate_s)
    clocks = estimate_s * a.clock_hz
    waves = math.ceil(v["waves"]) if v["waves"] > 1 else 1
    rounds = (g_req + s_req + u_gl + u_gs) * 32.0 / max(1, threads) * waves
    v["request_rounds_per_clk"] = _log(rounds / clocks)
    arrivals = blocks * barrier_warps
    v["log_barrier_warps"] = _log1(arrivals)
    v["barrier_warps_per_clk"] = _log(arrivals / a.sm_count / clocks)
    roofline_s = roof if roof > 0 else 1e-6
    v["log_roofline_s"] = math.log10(roofline_s)
    v["traffic_over_task"] = traffic / task_bytes if task_bytes else math.nan
    v["threads_per_elem"] = (threads * blocks) / (task_bytes / 4.0) if task_bytes else math.nan
    return Features(v, unresolved, lint, roofline_s)


def _static_regs(ctx) -> float:
    from analyzer.resources import estimate_registers

    if not ctx.resources.measured:
        return float(ctx.resources.registers)
    return float(estimate_registers(ctx.program, ctx.kernel, ctx.accesses.constants).registers)


def mask_ptxas(x: np.ndarray) -> np.ndarray:
    """The same rows as if ptxas had not run: its features missing (and occupancy from the estimate)."""
    out = np.array(x, dtype=np.float64, copy=True)
    for name in PTXAS_FEATURES:
        out[..., FEATURE_NAMES.index(name)] = np.nan
    return out


def _check_schema() -> None:
    assert len(set(FEATURE_NAMES)) == len(FEATURE_NAMES), "duplicate feature names"


_check_schema()
