"""Lint one CUDA source: parse, analyze every kernel, run the rules, apply suppressions.

`lint_source` is the library entry point (the CLI, the reward model and the
corpus validation all call it); it never raises on bad CUDA code.
"""
from __future__ import annotations

import gc
import math
import re
from dataclasses import dataclass, field, replace
from typing import Mapping

import numpy as np

from . import models
from . import symbolic as S
from .access import KernelAccesses, analyze
from .directives import Macros, device_macros
from .parse import Function, Program, compact_name, launch_bounds, parse
from .resources import CompilerUnavailable, Resources, estimate_registers, instance_key, ptxas_resources
from .rules import DEFAULT_BLOCK_SOURCE, FileContext, Finding, KernelContext, Options, Rule, all_rules, prepare_estimates
from .suppress import scan


@dataclass(frozen=True)
class LaunchSpec:
    """What the caller knows of a launch; anything left None comes from the source or defaults."""

    block: tuple[int, int, int] | None = None
    grid: tuple[int, int, int] | None = None
    smem: int | None = None
    args: Mapping[str, int | float] = field(default_factory=dict)
    origin: str = "the given launch"     # where the block came from, as the launch text says it

    def over(self, lower: "LaunchSpec | None") -> "LaunchSpec":
        """This spec, with what it leaves open taken from `lower` (field by field; arguments by name)."""
        if lower is None:
            return self
        return LaunchSpec(self.block if self.block is not None else lower.block,
                          self.grid if self.grid is not None else lower.grid,
                          self.smem if self.smem is not None else lower.smem,
                          {**lower.args, **self.args},
                          self.origin if self.block is not None or lower.block is None else lower.origin)


@dataclass(frozen=True)
class LintSettings:
    arch: str = models.DEFAULT_ARCH
    block_size: int = 256
    ptxas: bool = False
    ptxas_backend: str = "auto"
    options: Options = field(default_factory=Options)


@dataclass
class KernelSummary:
    """The estimates behind the findings, per kernel (also the reward model's raw features)."""

    name: str
    line: int
    block: tuple[int, int, int]
    grid: tuple[int, int, int]
    launch_source: str
    registers: int
    registers_source: str
    occupancy: float
    occupancy_limiter: str
    shared_bytes: int
    global_load_sectors_per_request: float | None
    global_load_ideal: float | None
    global_store_sectors_per_request: float | None
    global_store_ideal: float | None
    shared_load_wavefronts_per_request: float | None
    shared_store_wavefronts_per_request: float | None
    shared_load_ideal: float | None
    shared_store_ideal: float | None
    accesses: int
    unknown_accesses: int
    assumed: tuple[str, ...] = ()


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    kernels: list[KernelSummary] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    contexts: list[KernelContext] = field(default_factory=list, repr=False)
    suppressed: int = 0


_TEMPLATE_ARGS = re.compile(r"^\s*([A-Za-z_]\w*)\s*<(.*)>\s*$")


def split_name_expression(name: str) -> tuple[str, list[str]]:
    """`reduce<256, float>` -> ("reduce", ["256", "float"])."""
    if "<" not in name:     # a plain name: the pattern would backtrack over it only to fail
        return name.strip(), []
    m = _TEMPLATE_ARGS.match(name)
    if not m:
        return name.strip(), []
    return m.group(1), [a.strip() for a in m.group(2).split(",")]


def _block_default(kernel_text: str, block_size: int) -> tuple[int, int, int]:
    if "threadIdx.y" in kernel_text and block_size % 32 == 0 and block_size > 32:
        return (32, block_size // 32, 1)
    return (block_size, 1, 1)


def _row_width(kernel: Function, body: str, block_size: int) -> tuple[int, str] | None:
    """(width, array) where a shared array's rows, narrower than a warp, are indexed by threadIdx.x
    alone (`s_f[threadIdx.y + 4][threadIdx.x]`, or through `int si = threadIdx.x;`): the block can
    be no wider than that row, so a block guessed for an unknown launch is not either."""
    best, names = None, None
    for arr in kernel.shared:
        width = arr.dims[-1] if len(arr.dims) >= 2 else None
        if width is None or not 1 <= width < 32 or block_size % width:
            continue
        if names is None:      # once, and only for a kernel with such an array
            names = ["threadIdx\\.x"] + [re.escape(a) for a in _tid_aliases(body)]
        if re.search(rf"\b{re.escape(arr.name)}\s*(?:\[[^\[\]]*\]\s*)+\[\s*(?:{'|'.join(names)})\s*\]", body) and \
                (best is None or width < best[0]):
            best = (width, arr.name)
    return best


_BLOCK_SCALE = re.compile(r"\bblockIdx\.([xyz])\s*\*\s*([A-Za-z_]\w*)\b(?!\s*[.(\[*/%])|"
                          r"(?<![.\w])([A-Za-z_]\w*)\s*\*\s*blockIdx\.([xyz])\b")


# tried where the text says "threadIdx.x" / "for", not at every position of a kernel's body
_TID_ALIAS = re.compile(r"\b(?:int|unsigned|size_t|auto|long)\s+([A-Za-z_]\w*)\s*=\s*(?:\(\s*int\s*\)\s*)?$")
_BLOCK_STRIDE = re.compile(r"for\s*\(\s*(?:[\w:]+\s+)*([A-Za-z_]\w*)\s*=\s*([\w.]+)\s*;[^;]*;\s*\1\s*\+=\s*"
                           r"([A-Za-z_]\w*|\d+)\s*\)")


def _tid_aliases(body: str) -> set[str]:
    """Names declared as `int tid = threadIdx.x;` (also unsigned, const, `(int)threadIdx.x`, the
    first of several declarators)."""
    out: set[str] = set()
    i = body.find("threadIdx.x")
    while i >= 0:
        j = i + 11
        if body[j:j + 4].lstrip()[:1] in (";", ","):      # `int tid = threadIdx.x;` or `..., sj = ...;`
            m = _TID_ALIAS.search(body, max(0, i - 60), i)
            if m:
                out.add(m.group(1))
        i = body.find("threadIdx.x", j)
    return out


def _block_stride(body: str, known: Mapping[str, int | float]) -> tuple[str, int] | None:
    """(name, value) of the step of the kernel's block-stride loops, `for (c = threadIdx.x; c < n;
    c += BLOCK)`, where every such loop steps by the same known value: the block's x extent (a
    smaller block would skip elements, a larger one do them twice). None where the kernel
    uses threadIdx.y (its x extent is not its size), or no such loop says."""
    if "threadIdx.y" in body or "+=" not in body:
        return None
    starts = {"threadIdx.x"} | _tid_aliases(body)
    found: set[tuple[str, int]] = set()
    i = body.find("for")
    while i >= 0:
        m = _BLOCK_STRIDE.match(body, i) if (i == 0 or not (body[i - 1].isalnum() or body[i - 1] == "_")) else None
        i = body.find("for", i + 3)
        if m is None or m.group(2) not in starts:
            continue
        step = m.group(3)
        v = int(step) if step.isdigit() else known.get(step)
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 1024:
            return None     # blockDim.x, a runtime size, or a value no block has: nothing to infer
        found.add((step, v))
    return found.pop() if len(found) == 1 else None


def _block_scale_params(body: str, names: list[str], block: tuple[int, int, int]) -> dict[str, tuple[int, str]]:
    """Template parameters nothing gives that scale a block index (`blockIdx.x * TILE`): a block's
    share of the index space, the block's extent in the code's own reading (`blockIdx.x * BLOCK +
    threadIdx.x`). Each takes the largest extent of the block among the dimensions it scales (a
    TILE over x and y with a 32x8 block: 32, rows looped over in y), instead of 4096, beside which
    every guard (`x < cols`) ran no thread in the sampled blocks."""
    wanted = set(names)
    found: dict[str, tuple[int, str]] = {}
    for m in _BLOCK_SCALE.finditer(body):
        dim, name = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
        if name not in wanted or (m.group(3) and body[:m.start()].rstrip()[-1:] in ("*", "/", "%")):
            continue    # the block's share is a product or quotient (`TILE * TILE`, `n / TILE`): not guessed
        extent = block["xyz".index(dim)]
        if name not in found or extent > found[name][0]:
            found[name] = (extent, dim)
    return found


def _partial_block(program: Program, kernel: Function, max_threads: int | None, block_size: int):
    """(block, source) from the first launch of `kernel` whose block has one dimension no constant
    decides (`dim3 block(1, BLOCK_SIZE, 1)`, BLOCK_SIZE from a header): that dimension takes
    what makes the block `__launch_bounds__`'s size or else the default block size, which keeps
    the shape's axes (a block of 1 x N threads is not N x 1)."""
    for site in program.launches_of(kernel.name):
        dims = site.block_dims
        if not dims or sum(d is None for d in dims) != 1:
            continue
        known = math.prod(d for d in dims if d is not None)
        total = max_threads or block_size
        fill = max(1, total // known)
        axis = "xyz"[dims.index(None)]
        block = tuple(fill if d is None else d for d in dims)
        what = "__launch_bounds__" if max_threads else f"{DEFAULT_BLOCK_SOURCE} {block_size}"
        return block, f"the launch at line {site.line}, its unknown {axis} taken as {fill} to make {what}"
    return None


def _sites(program: Program, kernel: Function) -> tuple:
    """The file's launch of `kernel` that gives a block, and that or else any launch of it (None: none)."""
    mine = program.launches_of(kernel.name)
    site = next((l for l in mine if l.block is not None), None)
    return site, site or (mine[0] if mine else None)


def _grid_guessed(program: Program, kernel: Function, spec: LaunchSpec | None) -> bool:
    """Whether resolve_launch guessed the kernel's grid (no launch spec and no launch in the file gave one)."""
    any_site = _sites(program, kernel)[1]
    return (spec is None or spec.grid is None) and (any_site is None or any_site.grid is None)


def resolve_launch(program: Program, kernel: Function, spec: LaunchSpec | None, settings: LintSettings,
                   template_args: list[str] | tuple[str, ...] = ()) -> tuple[models.Launch, str, int, dict[str, int | str]]:
    """Block, grid, scalar args, dynamic smem and template arguments for a kernel.

    Template arguments: `template_args` (from a name expression, `k<256, float>`) over those of
    the file's first launch of the kernel that gives any; a template kernel the file never
    launches that way takes those of its first explicit instantiation (`template __global__ void
    k<256, 2>(...);`), the code a compiler builds from this file."""
    spec = spec or LaunchSpec()
    site, any_site = _sites(program, kernel)
    targs: dict[str, int | str] = {}
    texts: tuple[str, ...] = ()
    instantiated = ""
    if any_site is not None and any_site.template_args:
        texts = any_site.template_args
    elif kernel.template_params and not template_args:
        inst = next((i for i in program.instantiations if i.kernel == kernel.name), None)
        if inst is not None:
            texts = inst.template_args
            instantiated = f"; template arguments of the explicit instantiation at line {inst.line}"
    names = list(kernel.template_params)
    for given in (texts, template_args):
        for name, text in zip(names, given):
            v = _int(text, program.constants)
            targs[name] = v if v is not None else text   # a value, or a type argument
    bounds = kernel.launch_bounds
    if bounds is not None and bounds.exprs and kernel.template_params:   # bounds the arguments decide
        known = {**program.constants, **{k: v for k, v in kernel.template_params.items() if v is not None},
                 **{k: v for k, v in targs.items() if isinstance(v, int)}}
        if any(isinstance(v, int) for v in targs.values()):
            bounds = launch_bounds(bounds.exprs, known)
        name = bounds.exprs[0].strip()
        if not bounds.max_threads and spec.block is None and site is None and name in kernel.template_params \
                and name not in known:
            # `__launch_bounds__(BLOCK)` of a template nothing instantiates: BLOCK is the block size,
            # so the default block size is its value too (the code and the block agree). A size
            # derived from it (TILE * TILE) is not guessed: a tile side is the author's choice.
            targs[name] = settings.block_size
            bounds = launch_bounds(bounds.exprs, {**known, name: settings.block_size})
            instantiated = f" with {name} = {settings.block_size}, the default block size{instantiated}"
    if spec.block is not None:
        block, source = spec.block, spec.origin
    elif site is not None:
        block, source = site.block, f"the launch at line {site.line}"
    elif (part := _partial_block(program, kernel, bounds.max_threads if bounds else None, settings.block_size)):
        block, source = part
    elif bounds is not None and bounds.max_threads:
        block, source = (bounds.max_threads, 1, 1), "__launch_bounds__"
        if "threadIdx.y" in program.text(kernel.body):
            block, source = _block_default(program.text(kernel.body), bounds.max_threads), "__launch_bounds__ (2-D guess)"
    else:
        body = program.text(kernel.body)
        stride = _block_stride(body, {**program.constants, **{k: v for k, v in targs.items() if isinstance(v, int)}})
        if stride is not None:
            block, source = (stride[1], 1, 1), f"{stride[0]} = {stride[1]}, the step of its block-stride loop"
        else:
            block = _block_default(body, settings.block_size)
            source = f"{DEFAULT_BLOCK_SOURCE} {settings.block_size}"
            narrow = _row_width(kernel, body, settings.block_size)
            if narrow is not None:
                width, name = narrow
                block = (width, settings.block_size // width, 1) if "threadIdx.y" in body else (width, 1, 1)
                source += f", {width} threads wide as the rows of shared {name} that threadIdx.x indexes"
    unbound = [n for n, v in kernel.template_params.items() if v is None and n not in targs]
    if unbound:
        given = _block_scale_params(program.text(kernel.body), unbound, block)
        if given:
            instantiated += "".join(f"; {n} = blockDim.{d} = {v}, read from blockIdx.{d} * {n}"
                                    for n, (v, d) in given.items())
            for n, (v, _) in given.items():
                targs[n] = v
    if spec.grid is not None:
        grid = spec.grid
    elif any_site is not None and any_site.grid is not None:
        grid = any_site.grid
    else:
        grid = (1024, 1, 1) if block[1] == 1 else (64, 64, 1)
    smem = spec.smem if spec.smem is not None else (site.smem if site is not None and site.smem else 0)
    args = dict(spec.args)
    taken, counters = _site_arguments(kernel, any_site, args)
    if taken:
        at = f"the launch at line {any_site.line}"
        source += f" with {taken} constant argument{'s' if taken > 1 else ''}" if at == source else \
            f"; {taken} constant argument{'s' if taken > 1 else ''} of {at}"
    if counters:
        source += f"; {', '.join(f'{n} = {args[n]:g}' for n in counters)} as at its first launch (host code changes " \
                  f"{'them' if len(counters) > 1 else 'it'} between launches)"
    return models.Launch(tuple(block), tuple(grid), args), source + instantiated, int(smem or 0), targs


def _site_arguments(kernel: Function, site, args: dict) -> tuple[int, list[str]]:
    """Scalar parameters the launch gives as constants (`k<<<g, b>>>(x, y, 28, 3)`, or host code's
    `const int n = 1 << 20;`) and host loops' counters at their first value, added to `args` where
    the caller gave none: (how many constants, the parameters that took a counter)."""
    if site is None or not site.args or len(site.args) != len(kernel.params):
        return 0, []    # a parameter pack, or a call the parser read otherwise: positions unsure
    taken, counters = 0, []
    for i, (p, v) in enumerate(zip(kernel.params, site.args)):
        if v is not None and not p.pointer and p.name not in args and not isinstance(v, bool) \
                and models.representable(v):     # not `1 << 70` or `1e308 * 4`: no size
            args[p.name] = v
            if i in site.loop_first:
                counters.append(p.name)
            else:
                taken += 1
    return taken, counters


def _included(source: bytes, path: str) -> Program | None:
    """The definitions of the local headers a file on disk includes (analyzer/includes.py); an
    in-memory source (a reward's candidate: path not a file) reads nothing from the disk."""
    if b"include" not in source:
        return None
    from .includes import known

    return known(source, path)


def _launch_notes(program: Program) -> tuple[dict, list]:
    """The file's `// cudaperf: launch` annotations by the kernel each is for, as launch specs
    with their template arguments, and the ones not used, with why (PA002 reports them)."""
    if b"cudaperf:" not in program.source:
        return {}, []
    from .annotations import NoteProblem, scan as scan_notes

    notes, problems = scan_notes(program.source.decode("utf-8", "replace"), program.constants)
    out: dict[str, tuple[LaunchSpec, tuple[str, ...], int]] = {}
    for note in notes:
        kernel, why = _note_kernel(program, note)
        if kernel is not None:
            why = _note_values_problem(kernel, note)
        if kernel is not None and why is None and kernel.name in out:
            why = f"a second launch annotation for `{kernel.name}` (the first is at line {out[kernel.name][2]})"
        if why is not None:
            problems.append(NoteProblem(note.line, note.col, f"launch annotation not used: {why}"))
            continue
        spec = LaunchSpec(note.block, note.grid, note.smem, dict(note.args), f"the annotation at line {note.line}")
        out[kernel.name] = (spec, note.template_args, note.line)
    return {k: v[:2] for k, v in out.items()}, sorted(problems, key=lambda p: (p.line, p.col))


def _note_kernel(program: Program, note) -> tuple[Function | None, str | None]:
    """The kernel an annotation is for: the one it names; else the kernel it stands in, or the
    next function defined after it, which must be a kernel."""
    if note.name is not None:
        k = next((f for f in program.kernels if f.name == note.name), None)
        if k is not None:
            return k, None
        if any(f.name == note.name for f in program.functions):
            return None, f"`{note.name}` is not a kernel (__global__)"
        return None, f"this file defines no kernel `{note.name}`"
    inside = next((f for f in program.kernels if f.line <= note.line <= f.end_line), None)
    if inside is not None:
        return inside, None
    after = [f for f in program.functions if f.line >= note.line]
    if not after:
        return None, "no kernel follows it; name the kernel (`// cudaperf: launch NAME block=...`)"
    nxt = min(after, key=lambda f: f.line)
    if nxt.kind != "global":
        return None, (f"the next function, `{nxt.name}` (line {nxt.line}), is not a kernel; name the kernel "
                      f"(`// cudaperf: launch NAME block=...`)")
    return nxt, None


def _note_values_problem(kernel: Function, note) -> str | None:
    for name in note.args:
        p = kernel.param(name)
        if p is None:
            names = ", ".join(q.name for q in kernel.params if not q.pointer) or "none"
            return f"`{kernel.name}` has no parameter `{name}` (its scalar parameters: {names})"
        if p.pointer:
            return f"`{name}` of `{kernel.name}` is a pointer; only scalar parameters take values"
    if len(note.template_args) > len(kernel.template_params):
        return (f"`{kernel.name}` takes {len(kernel.template_params)} template argument"
                f"{'' if len(kernel.template_params) == 1 else 's'}, the annotation gives {len(note.template_args)}")
    return None


def _configured(configured: Mapping[str, LaunchSpec] | None, noted: dict) -> dict:
    """Per kernel name: the launch below the caller's (the annotation over the config file's) and
    the template arguments of the name expression that gave it, the annotation's first."""
    out = dict(noted)
    for name, spec in (configured or {}).items():
        base, targs = split_name_expression(name)
        if base in noted:
            note_spec, note_targs = noted[base]
            out[base] = (note_spec.over(spec), note_targs or tuple(targs))
        elif base not in out:
            out[base] = (spec, tuple(targs))
    return out


def _one_block_retry(ctx: KernelContext) -> KernelContext | None:
    """A kernel whose guessed grid's sampled block (block 1) reaches none of its accesses at the
    assumed sizes (a thread's index scaled by the 8 halves of its vector, or a chunk of 16, runs
    past n=4096 from block 1 on): estimated again on a grid of one block, whose threads have the
    lowest indices. None where that block reaches none either."""
    one = _on_one_block(ctx, "none of its memory accesses")
    return None if _unreached_note(one) is not None else one


def _on_one_block(ctx: KernelContext, reached: str) -> KernelContext:
    """The kernel estimated again on a grid of one block (its threads have the lowest indices), the
    launch source saying why: block 1 of the guessed grid reaches only `reached`."""
    gx, gy, gz = ctx.launch.grid
    source = (f"{ctx.launch_source}; a grid of one block: block 1 of the guessed {gx * gy * gz} reaches {reached} "
              "at the assumed sizes")
    one = KernelContext(ctx.program, ctx.kernel, ctx.accesses, models.Launch(ctx.launch.block, (1, 1, 1), ctx.launch.args),
                        source, ctx.arch, ctx.resources, ctx.options, param_defaults=ctx.param_defaults,
                        launch_smem=ctx.launch_smem)
    prepare_estimates([one])
    return one


def _reached(ctx: KernelContext) -> tuple[int, int, bool]:
    """(global and shared accesses with an estimate, how many of them some thread reaches, whether
    each one no thread reaches is in a loop no thread enters: one that reaches none of its accesses,
    not a branch in a loop that runs, `if (i < RADIUS)` at the array's edge)."""
    pairs = [(a, e) for a, e in zip(ctx.accesses.accesses, ctx.estimates)
             if a.space in ("global", "shared") and e is not None]
    missed = [a for a, e in pairs if not e.requests]
    entered = {lp for a, e in pairs if e.requests for lp in a.loops}
    return len(pairs), len(pairs) - len(missed), all(a.loops and a.loops[-1] not in entered for a in missed)


def _loops_retry(ctx: KernelContext) -> KernelContext | None:
    """A kernel whose guessed grid's sampled block (block 1) skips some of its loops at the assumed
    sizes (`for (i = idx * 16; i < n; ...)`: 16 elements a thread run past n=4096 from block 1 on)
    while it reaches its other accesses: estimated again on a grid of one block, kept where that
    block reaches more of them."""
    total, reached, in_loops = _reached(ctx)
    if reached in (0, total) or not in_loops:
        return None
    one = _on_one_block(ctx, f"{reached} of its {total} memory accesses")
    return one if _reached(one)[1] > reached else None


def _unreached_note(ctx: KernelContext) -> str | None:
    """Why a kernel with memory accesses has no estimate at all: no thread of the sampled block
    gets past their guards and loop bounds (sizes assumed too small or too large for the launch,
    `blockIdx.x * (BLOCK * ITEMS)` with 4096 for each), so the file's report says nothing of it."""
    pairs = [(a, e) for a, e in zip(ctx.accesses.accesses, ctx.estimates) if a.space in ("global", "shared")]
    evaluated = [e for _, e in pairs if e is not None]
    if not evaluated or any(e.requests > 0 for e in evaluated):
        return None
    assumed = sorted({n for e in evaluated for n in e.assumed})
    at = f" at the assumed {', '.join(f'{n}={models.DEFAULT_PARAM_VALUE}' for n in assumed)}" if assumed else ""
    name = ctx.kernel.name
    return (f"no thread of the sampled block reaches its {len(pairs)} memory access{'es' if len(pairs) > 1 else ''} "
            f"(block {'x'.join(map(str, ctx.launch.block))}{at}): nothing to estimate; if that is not how it runs, "
            f"give its launch (`// cudaperf: launch {name} block=... NAME=VALUE`, [launch.{name}] in the config, "
            f"or --block/--arg)")


def _template_note(ctx: KernelContext) -> str | None:
    """What GM101/GM102/SM201 leave unjudged for want of the kernel's template values (a GEMM's
    `BM, BN, TM, TN`, instantiated in another file): how many accesses, and how to give them."""
    if not ctx.kernel.template_params:
        return None
    held, names = 0, set()
    for a, e in zip(ctx.accesses.accesses, ctx.estimates):
        if a.space in ("global", "shared") and e is not None and e.requests:
            unbound = ctx.unbound_template_values(a, e)
            if unbound:
                held += 1
                names.update(unbound)
    if not held:
        return None
    names = sorted(names)
    return (f"coalescing and bank conflicts of {held} access{'es' if held > 1 else ''} not judged: their addresses "
            f"depend on the template values {', '.join(names)}, which nothing in the file gives (give them: "
            f"`// cudaperf: launch {ctx.kernel.name}<...>`, or `--arg {names[0]}=...`)")


def _int(text: str, consts) -> int | None:
    from .parse import eval_constant

    v = eval_constant(text, consts)
    return int(v) if isinstance(v, (int, float)) else None


def _name_expressions(program: Program, kernels: list[str] | None, lower: Mapping | None = None) -> tuple[str, ...]:
    """Template instantiations to compile: the ones asked for, annotated or configured (`lower`:
    `_configured`'s table) and the ones the file launches."""
    out = {k.strip() for k in (kernels or []) if "<" in k}
    out |= {f"{name}<{', '.join(targs)}>" for name, (_, targs) in (lower or {}).items() if targs}
    for launch in program.launches:
        if launch.template_args:
            out.add(f"{launch.kernel}<{', '.join(launch.template_args)}>")
    return tuple(sorted(out))


def _resources(program: Program, kernel: Function, settings: LintSettings, cache: dict, notes: list[str],
               name_expressions: tuple[str, ...] = (), template_args: Mapping[str, int | str] | None = None,
               constants: dict | None = None) -> Resources:
    if settings.ptxas:
        if "table" not in cache:
            try:
                cache["table"] = ptxas_resources(program, settings.arch, settings.ptxas_backend, name_expressions)
            except CompilerUnavailable as exc:
                cache["table"] = {}
                notes.append(f"ptxas unavailable ({exc}); registers are static estimates")
        table = cache["table"]
        found = None
        values = [(template_args or {}).get(name) for name in kernel.template_params]
        if values and all(isinstance(v, int) for v in values):   # the instance analyzed, where the log names it
            found = table.get(instance_key(kernel.name, values))
        found = found or table.get(kernel.name)
        if found is not None:
            return found
    return estimate_registers(program, kernel, constants)


def _weighted(pairs) -> tuple[float | None, float | None]:
    req = sum(e.requests for e in pairs)
    if not req:
        return None, None
    return float(sum(e.units for e in pairs) / req), float(sum(e.ideal_units for e in pairs) / req)


def summarize(ctx: KernelContext) -> KernelSummary:
    acc = ctx.accesses.accesses
    est = ctx.estimates
    def pick(space, kinds):
        return [e for a, e in zip(acc, est) if a.space == space and a.kind in kinds and e is not None]
    gl, gl_i = _weighted(pick("global", ("load",)))
    gs, gs_i = _weighted(pick("global", ("store", "atomic")))
    sl, sl_i = _weighted(pick("shared", ("load",)))
    ss, ss_i = _weighted(pick("shared", ("store", "atomic")))
    unknown = sum(1 for a, e in zip(acc, est) if a.space in ("global", "shared") and e is None)
    assumed = tuple(sorted({n for e in est if e is not None for n in e.assumed}))
    occ = ctx.occupancy
    return KernelSummary(ctx.kernel.name, ctx.kernel.line, ctx.launch.block, ctx.launch.grid, ctx.launch_source,
                         ctx.resources.registers, ctx.resources.source, float(occ.occupancy), occ.limiter,
                         ctx.static_shared_bytes + ctx.launch_smem, gl, gl_i, gs, gs_i, sl, ss, sl_i, ss_i,
                         sum(1 for a in acc if a.space in ("global", "shared")), unknown, assumed)


def lint_source(source: str | bytes, path: str = "<string>", *, settings: LintSettings | None = None,
                rules: Mapping[str, Rule] | None = None, launches: Mapping[str, LaunchSpec] | None = None,
                kernels: list[str] | None = None, default_launch: LaunchSpec | None = None,
                configured: Mapping[str, LaunchSpec] | None = None, annotations: bool = True,
                suppressions: bool = True, macros: Macros | None = None) -> FileResult:
    """Findings and per-kernel estimates for one CUDA source.

    launches: per kernel name (or name expression), what is known of its launch.
    default_launch: the launch of every kernel that `launches` does not name.
    kernels: restrict the analysis to these kernels (names or name expressions).
    configured: per kernel name (or name expression), the config file's launches: below the
        file's `// cudaperf: launch` annotations, which are below `launches` / `default_launch`.
    annotations: read the file's launch annotations (a reward for generated code does not: the
        launch is the task's, not what the candidate says of it).
    suppressions: honour the file's inline suppressions (`// cudaperf: ignore`, NOLINT...). A
        reward does not: a policy that learnt to write `// cudaperf: ignore-file` would hide the
        findings its feedback and the surrogate's finding counts are made of.
    macros: what the compile defines besides the file, for its conditional directives
        (analyzer.directives); default: nvcc's names, `__CUDA_ARCH__` of `settings.arch`, and
        maybe more from a build's command line (a condition on another name is undecided).
    """
    # The analysis allocates ~10^5 short-lived tuples per file; the cyclic collector's passes
    # over them cost a tenth of the time and free nothing (they die by reference count).
    # It is paused for the call and left as it was.
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        # constant folding of code under edit (`256 / 1e-308`) overflows: the value is inf and
        # the models treat it as no size; numpy's warning would only be noise on stderr
        with np.errstate(all="ignore"):
            return _lint_source(source, path, settings, rules, launches, kernels, default_launch, configured,
                                annotations, suppressions, macros)
    finally:
        S.forget()
        if paused:
            gc.enable()


def _original_edits(program: Program, edits: tuple) -> tuple:
    """A fix's edits at their columns as written (Program.original_column)."""
    return tuple(replace(e, col=program.original_column(e.line, e.col)) for e in edits)


def _one_line(f: Finding) -> Finding:
    """The finding with its message on one line (`path:line:col: CODE message` is a line a tool
    splits on): code it quotes over several lines has its line breaks and indentation collapsed."""
    m = f.message
    if "\n" not in m and "\r" not in m and "\t" not in m:
        return f
    return Finding(f.code, f.name, f.severity, " ".join(m.split()), f.path, f.line, f.col, f.kernel, f.estimate, f.fix)


def _lint_source(source, path, settings, rules, launches, kernels, default_launch, configured=None,
                 annotations=True, suppressions=True, macros=None) -> FileResult:
    settings = settings or LintSettings()
    rules = all_rules() if rules is None else rules
    if isinstance(source, str):   # once, for the headers' scan and the parse (parse's own encoding)
        source = source.encode("utf-8", "surrogatepass")
    program = parse(source, path, _included(source, path), macros or device_macros(settings.arch))
    result = FileResult(path)
    arch = models.arch(settings.arch)
    launches = dict(launches or {})
    wanted = None
    if kernels is not None:
        wanted = {}
        for k in kernels:
            base, targs = split_name_expression(k)
            wanted[base] = (k, targs)
            if targs:       # or an explicit specialization's own name, `k<float>`
                wanted[compact_name(k)] = (k, [])
        special = {compact_name(kn.name) for kn in program.kernels if "<" in kn.name}
        for base in [b for b, (full, targs) in wanted.items() if targs and compact_name(full) in special]:
            del wanted[base]    # what `k<float>` runs is the specialization, not the primary template
    noted, note_problems = _launch_notes(program) if annotations else ({}, [])
    lower = _configured(configured, noted)
    res_cache: dict = {}
    contexts: list[KernelContext] = []
    guessed_grid: list[bool] = []     # per context: resolve_launch guessed its grid
    for kernel in program.kernels:
        name = compact_name(kernel.name) if "<" in kernel.name else kernel.name
        if wanted is not None and name not in wanted:
            continue
        spec = launches.get(kernel.name, default_launch)
        expr_targs: list[str] = []
        if wanted is not None:
            full, expr_targs = wanted[name]
            spec = launches.get(full, spec)
        below, below_targs = lower.get(kernel.name, (None, ()))
        spec = spec.over(below) if spec is not None else below
        expr_targs = expr_targs or list(below_targs)
        try:
            launch, source_of_block, smem, targs = resolve_launch(program, kernel, spec, settings, expr_targs)
            ka: KernelAccesses = analyze(program, kernel, targs)
            for note in ka.notes:
                result.notes.append(f"{path}:{kernel.line}: kernel {kernel.name}: {note}")
            resources = _resources(program, kernel, settings, res_cache, result.notes,
                                   _name_expressions(program, kernels, lower) if settings.ptxas else (), targs,
                                   ka.constants)
            ctx = KernelContext(program, kernel, ka, launch, source_of_block, arch, resources, settings.options,
                                launch_smem=smem)
            contexts.append(ctx)
            guessed_grid.append(_grid_guessed(program, kernel, spec))
        except RecursionError:
            result.notes.append(f"{path}:{kernel.line}: kernel {kernel.name}: nesting too deep to analyze; skipped")
    prepare_estimates(contexts)
    for i, ctx in enumerate(contexts):
        note = _unreached_note(ctx)
        one = _one_block_retry(ctx) if note and guessed_grid[i] else None
        if one is None and not note and guessed_grid[i]:
            one = _loops_retry(ctx)
        if one is not None:
            contexts[i], note = one, None
        if note:
            result.notes.append(f"{path}:{ctx.kernel.line}: kernel {ctx.kernel.name}: {note}")
        held = _template_note(ctx)
        if held:
            result.notes.append(f"{path}:{ctx.kernel.line}: kernel {ctx.kernel.name}: {held}")
    findings: list[Finding] = []
    file_ctx = None
    for r in rules.values():
        if r.scope == "file":
            file_ctx = file_ctx or FileContext(program, contexts, settings.options, note_problems)
            try:
                findings.extend(r.check(file_ctx))
            except RecursionError:
                result.notes.append(f"{path}: rule {r.code} stopped: nesting too deep")
            continue
        for ctx in contexts:
            try:
                findings.extend(r.check(ctx))
            except RecursionError:
                result.notes.append(f"{path}:{ctx.kernel.line}: rule {r.code} stopped on kernel {ctx.kernel.name}: nesting too deep")
    if suppressions:
        sup = scan(program.source.decode("utf-8", "replace"))
        kept = [_one_line(f) for f in findings if not sup.suppressed(f.code, f.line)]
    else:
        kept = [_one_line(f) for f in findings]
    if program.shifts:   # columns as written, before the macro expansions on their lines
        kept = [Finding(f.code, f.name, f.severity, f.message, f.path, f.line, program.original_column(f.line, f.col),
                        f.kernel, f.estimate, _original_edits(program, f.fix)) for f in kept]
    result.suppressed = len(findings) - len(kept)
    result.findings = sorted(set(kept), key=Finding.sort_key)
    for ctx in contexts:
        try:
            result.kernels.append(summarize(ctx))
        except RecursionError:
            pass
    result.contexts = contexts
    return result
