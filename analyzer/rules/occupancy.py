"""Resources: occupancy, register spills, block shapes."""
from __future__ import annotations

import re

from ..parse import bound_threads
from . import FileContext, KernelContext, rule


@rule("OC601", "low-occupancy", "warning",
      "Theoretical occupancy below the threshold (default 25% of the SM's warps).",
      """
      What it does
          Computes theoretical occupancy from the block size, registers per thread (ptxas with
          --ptxas, else a static estimate) and shared memory per block, with the target
          architecture's limits (--arch, default sm_90), and names the limiting resource. A
          kernel whose `__launch_bounds__(threads, minBlocks)` asks for no more blocks an SM than
          it gets is left alone: the author chose that occupancy (a warp-specialized GEMM runs one
          block of 384 threads an SM by design).

      Why is this bad?
          Few resident warps leave too little independent work to hide memory latency: a
          memory-bound kernel at 12% occupancy rarely reaches full bandwidth. Where no block fits
          at all (1024 threads of 80 registers need 81,920 of an SM's 65,536) the launch fails
          with "too many resources requested for launch", and the finding says so.

      Example
          __global__ void k(...) { __shared__ float big[12288]; ... }   // 48 KB: few blocks per SM

      Use instead
          Smaller tiles, fewer registers (`__launch_bounds__`), or more work per thread with
          independent loads in flight, if the low occupancy is deliberate.
      """)
def low_occupancy(ctx: KernelContext, r):
    occ = ctx.occupancy
    if occ.occupancy >= ctx.options.min_occupancy:
        return
    lb = ctx.kernel.launch_bounds
    if lb is not None and lb.min_blocks and occ.blocks_per_sm >= lb.min_blocks:
        return      # `__launch_bounds__(384, 1)`: the blocks an SM the kernel asks for, it gets
    regs = ctx.resources.registers
    how = "ptxas" if ctx.resources.measured else "estimated; run with --ptxas for the real count"
    smem = ctx.static_shared_bytes + ctx.launch_smem
    threads = ctx.launch.threads
    fails = ctx.launch_fit
    if fails != "fits":
        # no block fits at all: the launch itself fails, which is the news, not the occupancy
        a = ctx.arch
        if occ.limiter == "registers" and regs > a.max_regs_per_thread:
            need = f"{regs} registers a thread ({how}), more than the {a.max_regs_per_thread} a thread can have"
            fix = "use fewer live values"
        elif occ.limiter == "registers":
            # registers are allocated a warp at a time, in units of reg_alloc_unit
            per_warp = -(-regs * 32 // a.reg_alloc_unit) * a.reg_alloc_unit
            need = f"{threads} threads of {regs} registers ({how}) take {per_warp * -(-threads // 32):,} " \
                   f"registers a block, the SM has {a.regs_per_sm:,}"
            fix = f"cap them with __launch_bounds__({threads}) or launch smaller blocks"
        else:
            need = f"{smem:,} B of shared memory a block, {a.name} gives a block at most {a.max_smem_per_block:,} B"
            fix = "use smaller tiles"
        message = (f"no block of this launch fits on an SM ({need}): the launch {fails} with "
                   f"'too many resources requested for launch'; {fix}")
    else:
        message = (f"theoretical occupancy {occ.occupancy:.0%} ({occ.warps_per_sm} of {ctx.arch.max_warps_per_sm} "
                   f"warps on {ctx.arch.name}), limited by {occ.limiter}: block {threads} threads, "
                   f"{regs} registers/thread ({how}), {smem} B shared/block")
    yield ctx.finding(r, ctx.kernel.line, ctx.kernel.col, message,
                      occupancy=round(occ.occupancy, 4), limiter=occ.limiter, registers=regs,
                      registers_source=ctx.resources.source)


@rule("OC602", "register-spills", "warning",
      "ptxas spilled registers to local memory (needs --ptxas).",
      """
      What it does
          Reads the spill stores and loads that ptxas reports for the kernel (with --ptxas).

      Why is this bad?
          Spilled values live in local memory (DRAM, cached in L1): every access costs far more
          than a register, usually inside the hottest loop.

      Example
          float acc[16][16];   // 256 accumulators per thread

      Use instead
          Smaller register tiles, fewer live values, or a higher register budget through
          `__launch_bounds__(threads, minBlocks)` that still fits.
      """)
def spills(ctx: KernelContext, r):
    res = ctx.resources
    if not res.measured or (res.spill_stores == 0 and res.spill_loads == 0):
        return
    yield ctx.finding(r, ctx.kernel.line, ctx.kernel.col,
                      f"ptxas spills {res.spill_stores} bytes (stores) and {res.spill_loads} bytes (loads) per thread "
                      f"to local memory at {res.registers} registers",
                      spill_stores=res.spill_stores, spill_loads=res.spill_loads, registers=res.registers)


def _launched_bound(program, launch) -> int | None:
    """The launched kernel's `__launch_bounds__` threads (parse.bound_threads), where one kernel of
    that name has them (overloads with other bounds: unknown which one the launch calls)."""
    bounds = {bound_threads(program, k, launch.template_args) for k in program.kernels if k.name == launch.kernel}
    return bounds.pop() if len(bounds) == 1 else None


@rule("OC603", "bad-block-shape", "warning",
      "A launch whose block is not a whole number of warps, more than 1024 threads, or more than the kernel's `__launch_bounds__`.",
      """
      What it does
          Checks constant block shapes at `<<<grid, block>>>` launch sites and in
          `__launch_bounds__`, and a launch's block against the launched kernel's
          `__launch_bounds__(maxThreads)` (a template's over the launch's template arguments).
          A launch of one thread in all (`<<<1, 1>>>`: a serial set-up or bookkeeping kernel) is
          left alone; many blocks of one thread are not.

      Why is this bad?
          Warps are 32 threads: a 100-thread block still occupies 4 warps, and the last one runs
          at 4/32 of its width. Over 1024 threads the launch fails outright, and so it does over
          the kernel's own `__launch_bounds__` (ptxas compiled it, registers included, for no more
          threads than that).

      Example
          kernel<<<blocks, 100>>>(...);

      Use instead
          kernel<<<blocks, 128>>>(...);   // and guard the extra threads
      """, scope="file")
def block_shape(ctx: FileContext, r):
    for launch in ctx.program.launches:
        if launch.block is None:
            continue
        threads = launch.block[0] * launch.block[1] * launch.block[2]
        bound = _launched_bound(ctx.program, launch)
        if threads == 1 and launch.grid is not None and launch.grid[0] * launch.grid[1] * launch.grid[2] == 1:
            continue    # `<<<1, 1>>>`: one thread in all, a serial kernel (set-up, bookkeeping): nothing to fill
        if threads > 1024:
            msg = f"block {launch.block_text} has {threads} threads: launches fail above 1024"
        elif bound is not None and threads > bound:
            msg = (f"block {launch.block_text} has {threads} threads, more than {launch.kernel}'s "
                   f"__launch_bounds__({bound}): the launch fails")
        elif threads == 1:
            msg = f"block {launch.block_text} is 1 thread: each block runs one lane of a warp (1/32 full)"
        elif threads % 32:
            msg = f"block {launch.block_text} has {threads} threads, not a multiple of 32: the last warp runs {threads % 32}/32 full"
        else:
            continue
        from . import Finding
        yield Finding(r.code, r.name, r.severity, msg, ctx.program.path, launch.line, launch.col, launch.kernel,
                      {"threads": threads})
    for k in ctx.program.kernels:
        lb = k.launch_bounds
        if lb and lb.max_threads and (lb.max_threads % 32 or lb.max_threads > 1024):
            from . import Finding
            yield Finding(r.code, r.name, r.severity,
                          f"__launch_bounds__({lb.max_threads}) is not a multiple of 32 threads" if lb.max_threads <= 1024
                          else f"__launch_bounds__({lb.max_threads}) exceeds 1024 threads",
                          ctx.program.path, k.line, k.col, k.name, {"threads": lb.max_threads})


# Shared memory a block may have unless the kernel's limit is raised: 48 KB, static and dynamic
# together; `cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)` (or the
# driver's CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) lets the dynamic part grow to the SM's.
DEFAULT_SMEM_LIMIT = 48 * 1024
# any such call in the file: which kernel it raises is not read, so the rule keeps out of the file
_OPT_IN = re.compile(rb"FuncSetAttribute|MaxDynamicSharedMemorySize|MAX_DYNAMIC_SHARED_SIZE_BYTES")
_HIP = re.compile(rb"\bhip[A-Z]\w*\s*\(")     # HIP's launches: AMD GPUs give a block 64 KB without asking


def opts_in(source: bytes) -> bool:
    """Whether a source may raise a kernel's shared memory limit (or is HIP, which needs not):
    where it does not, a block gets DEFAULT_SMEM_LIMIT bytes."""
    return bool(_OPT_IN.search(source) or _HIP.search(source))


@rule("OC604", "shared-memory-without-opt-in", "error",
      "A launch asking for more than 48 KB of shared memory a block, in a file that never raises the kernel's limit.",
      """
      What it does
          Adds a launch's dynamic shared memory (the third `<<<grid, block, bytes>>>` argument, or
          `cudaLaunchKernel`'s, where a constant) to the launched kernel's static `__shared__`
          arrays, and reports a total over 48 KB in a file that never calls `cudaFuncSetAttribute`
          (or the driver's `cuFuncSetAttribute`) to raise the limit.

      Why is this bad?
          A block gets 48 KB of shared memory unless the kernel opts in to more: the launch fails
          with "invalid argument" (cudaErrorInvalidValue) and the kernel never runs, on every
          architecture, however much the SM has (227 KB on sm_90).

      Example
          big_tile<<<grid, 256, 64 * 1024>>>(x, y);

      Use instead
          cudaFuncSetAttribute(big_tile, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
          big_tile<<<grid, 256, 64 * 1024>>>(x, y);
      """, scope="file")
def shared_memory_opt_in(ctx: FileContext, r):
    launches = [l for l in ctx.program.launches if l.smem]
    if not launches or opts_in(ctx.program.original):
        return
    static = {}
    for c in ctx.kernels:
        static.setdefault(c.kernel.name, c.static_shared_bytes)
    from . import Finding
    for launch in launches:
        own = static.get(launch.kernel, 0)
        if launch.smem + own <= DEFAULT_SMEM_LIMIT:
            continue
        what = f"{launch.smem:,} B of dynamic shared memory" + (f" (and {own:,} B static)" if own else "")
        yield Finding(r.code, r.name, r.severity,
                      f"the launch asks for {what}, over the {DEFAULT_SMEM_LIMIT:,} B a block gets unless "
                      f"cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...) raises it, "
                      f"which this file never calls: the launch fails (invalid argument)",
                      ctx.program.path, launch.line, launch.col, launch.kernel,
                      {"dynamic_smem": launch.smem, "static_smem": own})
