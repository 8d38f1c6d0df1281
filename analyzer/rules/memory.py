"""Global memory: coalescing, vector width, bounds guards, contended atomics."""
from __future__ import annotations

import math
import re

from .. import models
from ..parse import SCALAR_SIZES
from .. import symbolic as S
from . import KernelContext, assumed_text, rule


def _fmt(x: float) -> str:
    if not math.isfinite(x):
        return str(x)
    return f"{x:.0f}" if abs(x - round(x)) < 0.05 else f"{x:.1f}"


def _uncoalesced(ctx: KernelContext, r, kinds: tuple[str, ...]):
    flagged = []
    for access, est in zip(ctx.accesses.accesses, ctx.estimates):
        if access.space != "global" or access.kind not in kinds or est is None or not est.requests:
            continue
        per, ideal = est.per_request, est.ideal_per_request
        if per > ideal * ctx.options.coalescing_slack and per - ideal >= 2 and \
                not ctx.unbound_template_values(access, est):
            flagged.append((access, est))
    flagged = _whole_vector_elements(ctx, flagged)
    for group, step, offsets in _records(flagged):
        access, est = group[0]
        per, ideal = est.per_request, est.ideal_per_request
        what = "load" if access.kind == "load" else "store"
        assumed = assumed_text(est)
        if "load_matrix_sync" in access.text:   # the fix is not an index: the tile must come through shared memory
            assumed += ("; a wmma tile loaded from global memory reads 16 bytes of each row per instruction: "
                        "stage tiles in shared memory (cp.async) and load the fragments from there")
        shape = (f"({per / ideal:.1f}x the sectors of a coalesced access; block {ctx.launch.block[0]}x"
                 f"{ctx.launch.block[1]}x{ctx.launch.block[2]} from {ctx.launch_source}){assumed}")
        data = dict(sectors_per_request=round(per, 3), ideal_sectors_per_request=round(ideal, 3),
                    address=S.to_str(access.address), array=access.array)
        if len(group) == 1:
            yield ctx.finding(r, access.line, access.col,
                              f"uncoalesced global {what} `{access.text}`: {_fmt(per)} sectors/request, ideal "
                              f"{_fmt(ideal)} {shape}", **data)
            continue
        # the fields of one record a lane (`p[3 * i]`, `p[3 * i + 1]`, `p[3 * i + 2]`): each access is
        # as wasteful alone, but together they use more of the sectors they touch (L1 keeps them
        # between the accesses), and the remedy is one for all: one finding, which counts them all
        used = min(step, len(set(offsets)) * access.elem_size)
        if used == step and _vector_width(ctx, access.array) == step:
            continue    # every field of a float4 element (`b[i].x` ... `b[i].w`): nvcc makes one 16-byte access
        texts = ", ".join(f"`{a.text}`" for a, _ in group[:4]) + (", ..." if len(group) > 4 else "")
        lines = sorted({a.line for a, _ in group})
        where = f"line {lines[0]}" if len(lines) == 1 else f"lines {lines[0]}-{lines[-1]}"
        verb = "read" if what == "load" else "write"
        yield ctx.finding(r, access.line, access.col,
                          f"uncoalesced global {what}s of a {step}-byte record a lane ({texts}, {where}): "
                          f"{_fmt(per)} sectors/request each, ideal {_fmt(ideal)} {shape}; together they {verb} "
                          f"{used} of each {step} bytes, in {len(group)} requests a warp where one {_wide(step)} "
                          f"{what} a record or a struct-of-arrays layout needs fewer",
                          accesses=len(group), **data)


# CUDA's vector types aligned to their size: the compiler reads or writes all of one element's fields as
# one access of that width (global memory here, shared memory in SM201)
ALIGNED_VECTORS = {"float4": 16, "int4": 16, "uint4": 16, "double2": 16, "longlong2": 16, "ulonglong2": 16,
                    "long2": 16, "ulong2": 16, "float2": 8, "int2": 8, "uint2": 8, "short4": 8, "ushort4": 8,
                    "half2": 4, "__half2": 4, "__nv_bfloat162": 4, "short2": 4, "ushort2": 4, "char4": 4,
                    "uchar4": 4}


_FIELDS = "xyzw"
# a field of a vector element as written (`box2[k].x`): group 1 the element, group 2 the field
VECTOR_FIELD = re.compile(r"(.+)\.\s*([xyzw])")


def _whole_vector_elements(ctx: KernelContext, flagged: list) -> list:
    """The flagged accesses less the fields of one element of a CUDA vector type that are all accessed
    alike (`box2[k].x` ... `box2[k].w` of a `float4*`, also where `k` is no polynomial, `i % N`) and
    waste only what the vector's width explains (a lane's fields 16 bytes apart): nvcc makes them one
    access of the element's width, which is coalesced."""
    by_element: dict = {}
    for access, est in flagged:
        m = VECTOR_FIELD.fullmatch(access.text)
        if m is not None:
            by_element.setdefault((m.group(1).replace(" ", ""), access.array, access.kind, access.loops), []).append(
                (m.group(2), access, est))
    whole = set()
    for (_, array, _kind, _loops), fields in by_element.items():
        width = _vector_width(ctx, array)
        if not width:
            continue
        need = set(_FIELDS[:width // fields[0][1].elem_size]) if fields[0][1].elem_size else set()
        if need and {f for f, _, _ in fields} == need and all(
                est.per_request <= est.ideal_per_request * len(need) * ctx.options.coalescing_slack
                for _, _, est in fields):
            whole.update(id(a) for _, a, _ in fields)
    return [(a, e) for a, e in flagged if id(a) not in whole] if whole else flagged


def _vector_width(ctx: KernelContext, array: str) -> int:
    """The bytes of the CUDA vector type a kernel parameter points to (`const float4 *b`: 16), else 0."""
    prm = ctx.kernel.param(array)
    return ALIGNED_VECTORS.get(ctx.program.resolve_type(prm.type), 0) if prm is not None and prm.pointer else 0


def _wide(step: int) -> str:
    """The one access that covers a record of `step` bytes, for the message."""
    return {4: "32-bit (half2, short2)", 8: "8-byte (float2, int2)", 12: "16-byte (float4, padding the record)",
            16: "16-byte (float4, int4)"}.get(step, "wide (a struct of float4s)")


def _records(flagged: list) -> list[tuple[list, int, list]]:
    """The flagged accesses in groups, each in the order met, with the step a lane takes and each
    member's constant offset: the fields of one record a lane (one array and kind, in the same loops,
    addresses that differ by a constant less than the step), else one access a group (step 0)."""
    groups: dict = {}     # base -> [(group, the first one's offset)]
    out: list[tuple[list, int, list]] = []
    for access, est in flagged:
        key = _record_key(access)
        if key is None:
            out.append(([(access, est)], 0, []))
            continue
        base, offset, step = key
        near = next((g for g, first in groups.get(base, ()) if abs(offset - first) < step), None)
        if near is not None:
            near[0].append((access, est))
            near[2].append(offset)
            continue
        group = ([(access, est)], step, [offset])
        groups.setdefault(base, []).append((group, offset))
        out.append(group)
    return out


def _record_key(access):
    """(what identifies the record's array, access kind, loops and address less its constant; the
    constant; the bytes a lane's address moves with threadIdx.x), or None where the address has
    no such form."""
    poly = S.to_poly(access.address)
    if not poly:
        return None
    step = abs(poly.get(("threadIdx.x",), 0))
    if not step and access.loops:   # `for (i = idx * 16; ...) in[i + k]`: the step at the loops' start
        start = S.to_poly(S.substitute(access.address, {lp.var: lp.init for lp in access.loops if lp.var}))
        step = abs(start.get(("threadIdx.x",), 0)) if start else 0
    if step <= access.elem_size:
        return None     # lanes a field apart or closer: no record of several fields a lane
    offset = poly.get((), 0)
    rest = tuple(sorted((m, c) for m, c in poly.items() if m))
    return (access.array, access.kind, access.loops, access.function, rest), offset, step


@rule("GM101", "uncoalesced-global-load", "warning",
      "A warp's global load touches more 32-byte sectors than the data it reads needs.",
      """
      What it does
          Evaluates the load's address for every lane of a warp (block shape from the launch site,
          `__launch_bounds__` or --block-size) and counts the 32-byte sectors each warp request touches,
          averaged over the loop iterations around it. The fields of one record a lane (`p[3 * i]`,
          `p[3 * i + 1]`, `p[3 * i + 2]`) are one finding, which names them all and says how much of
          each record they use between them; all the fields of one element of a CUDA vector type
          (`b[i].x` ... `b[i].w` of a `float4*`) are one access of its width, which nvcc makes.
          An address that depends on a template value nothing in the file gives is not judged
          (SM201 says why).

      Why is this bad?
          DRAM and L2 move whole sectors. A warp reading 32 floats with a stride of 32 elements
          touches 32 sectors (1024 bytes) to use 128 bytes: 8x the traffic, and a memory-bound
          kernel runs up to 8x slower.

      Example
          out[x * n + y] = in[y * n + x];   // threadIdx.x moves x: the store strides by n

      Use instead
          Make threadIdx.x move the fastest-varying (contiguous) index, or stage the tile through
          shared memory (transpose via `__shared__ float tile[32][33]`).
      """)
def uncoalesced_load(ctx: KernelContext, r):
    yield from _uncoalesced(ctx, r, ("load",))


@rule("GM102", "uncoalesced-global-store", "warning",
      "A warp's global store touches more 32-byte sectors than the data it writes needs.",
      """
      What it does
          Like GM101, for stores and atomics: sectors per warp request from each lane's address.

      Why is this bad?
          Partial-sector writes waste DRAM bandwidth the same way strided loads do, and L2 must
          merge the partial sectors.

      Example
          out[threadIdx.x * n + blockIdx.x] = v;

      Use instead
          out[blockIdx.x * n + threadIdx.x] = v;   // consecutive lanes, consecutive addresses
      """)
def uncoalesced_store(ctx: KernelContext, r):
    yield from _uncoalesced(ctx, r, ("store",))


@rule("GM103", "unvectorized-load", "info",
      "Contiguous 4-byte (or 2-byte) global loads that could be 16 bytes wide.",
      """
      What it does
          Finds arrays whose every global load in the kernel is a contiguous, fully coalesced
          scalar load of 4 bytes or less per lane (scalars of known size: a struct from a header
          is not one). An array the kernel also writes is one too: its loads can be wide as well.

      Why is this bad?
          Each load instruction moves 128 bytes per warp; float4 loads move 512 bytes with the
          same instruction count, so memory-bound kernels issue 4x fewer instructions and keep
          more bytes in flight per thread.

      Example
          y[i] = a * x[i] + y[i];

      Use instead
          float4 v = reinterpret_cast<const float4*>(x)[i];   // and handle the tail n % 4
      """)
def unvectorized(ctx: KernelContext, r):
    # Only streaming 1-D kernels: tiled 2-D kernels and shared-memory staging have other reasons
    # for their load width, and flagging them is noise.
    if ctx.launch.block[1] > 1 or ctx.static_shared_bytes or ctx.launch_smem:
        return
    by_array: dict[str, list] = {}
    for access, est in zip(ctx.accesses.accesses, ctx.estimates):
        if access.space == "global" and access.kind == "load":
            by_array.setdefault(access.array, []).append((access, est))
    for array, items in by_array.items():
        ok = all(est is not None and est.requests and a.elem_size <= 4 and _scalar(ctx, a) and est.active_lanes >= 31.5
                 and abs(est.per_request - est.ideal_per_request) < 0.01
                 and est.ideal_per_request >= a.elem_size  # one element per lane, not a broadcast
                 for a, est in items)
        if ok:
            first = items[0][0]
            width = 16 // first.elem_size
            yield ctx.finding(r, first.line, first.col,
                              f"`{array}` is read with contiguous {first.elem_size}-byte loads "
                              f"({_fmt(items[0][1].per_request)} sectors/request); {width} elements per thread as one "
                              f"16-byte load would issue {width}x fewer load instructions",
                              elem_size=first.elem_size, array=array)


def _scalar(ctx: KernelContext, access) -> bool:
    """Whether an access's element is a scalar: of known size, a template type, or a type named as
    scalar typedefs are (`scalar_t`, `real`, `label_t`), all taken as 4 bytes. A struct's or a
    vector's from a header (`curandState`, `Pack2X<T>`, `glm::vec3`, `mixed4`) is not one, and 4
    bytes was only a guess."""
    name = " ".join(access.elem_type.replace("const", " ").replace("volatile", " ").split())
    return name in SCALAR_SIZES or name in ctx.kernel.template_params or _SCALAR_TYPEDEF.fullmatch(name) is not None


_SCALAR_TYPEDEF = re.compile(r"[a-z_][a-z0-9_]*[a-z_]")    # lower case, no digit at the end (`float3`)


def _has_bound_check(ctx: KernelContext, access) -> bool:
    conds = list(access.guards) + [lp.cond for lp in access.loops if lp.cond is not None]
    return any(ctx.accesses.thread_dependent(c) or S.symbols(c) & {l.var for l in access.loops if l.var}
               for c in conds) or _clamped(access.address)


_CLAMPS = frozenset(("min", "umin", "fminf", "fmin"))


def _clamped(e: S.Expr) -> bool:
    """Whether an address holds an index clamped by a size (`y[min(i, n - 1)]`): a thread-dependent
    argument of a min with another argument that is not (the bound)."""
    t = e[0]
    if t == "f":
        if e[1] in _CLAMPS and any(S.symbols(a) & _THREADS for a in e[2]) and \
                any(not S.symbols(a) & _THREADS for a in e[2]):
            return True
        return any(_clamped(a) for a in e[2])
    if t == "b":
        return _clamped(e[2]) or _clamped(e[3])
    if t == "u":
        return _clamped(e[2])
    return False


_THREADS = frozenset(S.THREAD_SYMBOLS)


@rule("GM104", "missing-bounds-guard", "warning",
      "A global access indexed by the global thread id with no bounds check around it.",
      """
      What it does
          Flags global loads and stores whose address depends on both blockIdx and threadIdx (a
          global thread index) in a kernel that takes a size parameter, when no condition on a
          thread-dependent value (an `if`, an early `return`, a loop condition) guards them and
          no `min` clamps their index (`y[min(i, n - 1)]`).
          A kernel whose every launch in the file has a grid that rounds down (`n / 256`,
          `dim3 grid(w / threads.x, h / threads.y)`) is left alone: no block overhangs; so is an
          address that reads the block index only as a row of a parameter's length (`blockIdx.x *
          row_len + threadIdx.x`: a block per row, no global thread index). A kernel
          that checks none of its accesses gets one finding, at the first, naming the other lines;
          one that checks some but not all gets one at each line it does not check.

      Why is this bad?
          Grids are rounded up to whole blocks, so the last block overhangs the data whenever the
          size is not a multiple of the block: those threads read or write out of bounds.

      Example
          int i = blockIdx.x * blockDim.x + threadIdx.x;
          y[i] = 2.0f * x[i];

      Use instead
          if (i < n) y[i] = 2.0f * x[i];   // or a grid-stride loop: for (; i < n; i += stride)
      """)
def missing_guard(ctx: KernelContext, r):
    if not any(not p.pointer and p.type in ("int", "unsigned", "unsigned int", "size_t", "long", "int64_t", "long long",
                                           "uint32_t", "int32_t", "uint64_t")
               for p in ctx.kernel.params):
        return
    launches = ctx.program.launches_of(ctx.kernel.name)
    if launches and all(l.grid_exact for l in launches):
        return      # every launch's grid rounds down (`n / 256`): no block overhangs the data
    sizes = {p.name for p in ctx.kernel.params if not p.pointer}
    places: dict = {}     # (array, address) -> its first unchecked access: `C[i] =\n  beta * C[i]` is one place
    checked = False
    for access in ctx.accesses.accesses:
        if access.space != "global" or access.function != ctx.kernel.name:
            continue
        syms = S.symbols(access.address)
        if not (syms & set(S.THREAD_SYMBOLS)) or not (syms & set(S.BLOCK_SYMBOLS)):
            continue
        if S.has_load(access.address):
            continue    # `begin[queue[tid]]`: indexed by a value read from memory; the read is the one to check
        if _has_bound_check(ctx, access):
            checked = True
        elif _rows_of_blocks(access.address, sizes):
            continue    # `out[blockIdx.x * row_len + threadIdx.x]`: a block per row, no global thread index
        else:
            first = places.setdefault((access.array, access.address), access)
            if (access.line, access.col) < (first.line, first.col):
                places[(access.array, access.address)] = access
    unguarded: dict[int, object] = {}     # line -> its first unchecked place, in the accesses' order
    for access in places.values():
        unguarded.setdefault(access.line, access)
    if not unguarded:
        return
    lines = sorted(unguarded)
    # A kernel that checks some accesses and not others is reported at each unchecked one. One that
    # checks none (code written for sizes that are whole blocks) is one omission: reported once, at
    # its first access, naming the other lines.
    for line in (lines if checked else lines[:1]):
        access = unguarded[line]
        also = "" if checked or len(lines) == 1 else \
            f" (the kernel checks none of its global-thread-id accesses: also line{'s' if len(lines) > 2 else ''} " \
            f"{', '.join(map(str, lines[1:]))})"
        yield ctx.finding(r, access.line, access.col,
                          f"`{access.text}` is indexed by the global thread id and nothing checks it against the size: "
                          f"threads of an overhanging last block access out of bounds{also}",
                          array=access.array, address=S.to_str(access.address),
                          unchecked_lines=1 if checked else len(lines))


_LAUNCH_DIMS = frozenset(S.DIM_SYMBOLS)
_BLOCK_INDICES = frozenset(S.BLOCK_SYMBOLS)


def _rows_of_blocks(address: S.Expr, params: set[str]) -> bool:
    """Whether an address reads the block index only as a row of a runtime length (`blockIdx.x *
    row_len + threadIdx.x`: a block per row, its threads the row's columns; `row_len` one of the
    kernel's scalar `params`), never in a global thread index (`blockIdx.x * blockDim.x`, also times
    a row stride, or `blockIdx.x * 256`, `blockIdx.x * BLOCK`: a block index scaled by its own block
    size, launch sizes or compile-time values). Such a grid is a count of rows, not rounded up: no
    last block overhangs. Parts without a block index are opaque (`n / 2`: no polynomial)."""
    if params.isdisjoint(S.symbols(address)):
        return False    # no parameter in it (most: `x[i]`): no row length, and no polynomial to make
    opaque: dict[str, frozenset] = {}

    def atom(e):
        syms = S.symbols(e)
        if e[0] == "s" or syms & _BLOCK_INDICES:
            return None
        name = f"%{len(opaque)}"
        opaque[name] = syms
        return name

    poly = S.to_poly(address, atom)
    if poly is None:
        return False
    scaled = []    # (the block index's own axis, the symbols of what else scales it)
    for m in poly:
        for b in S.BLOCK_SYMBOLS:
            if b in m:
                rest = set()
                for x in m:
                    if x != b:
                        rest |= opaque.get(x, {x})
                scaled.append((b[-1], rest))
    return bool(scaled) and all("blockDim." + axis not in rest and rest & params for axis, rest in scaled)


# Atomics that set a value rather than add one up: under a condition on the data, outside loops,
# they record an event (an error flag, a found nonce, a new best) that few threads may meet
_SETTERS = frozenset(("atomicExch", "atomicCAS", "atomicMax", "atomicMin", "atomicOr", "atomicAnd"))


def _guard_lanes(ctx: KernelContext, access) -> float | None:
    """Active lanes per warp that runs the access, from its guards alone: an address the models
    cannot evaluate (`keys_out + seg_idx`, a loaded index) gives no estimate to count them, yet
    `if (threadIdx.x == 0)` still says one. A guard that cannot be evaluated counts as true."""
    if not access.guards:
        return None
    env0 = models.thread_env(ctx.launch)
    needed = set().union(*(S.symbols(g) for g in access.guards))
    env, _ = models.bind_params(env0, ctx.launch.args, needed, ctx.param_defaults)
    warps = models.active_mask(access.guards, env, env0["threadIdx.x"].shape[0]).reshape(-1, 32)
    busy = warps.any(axis=1)
    return float(warps[busy].sum(axis=1).mean()) if busy.any() else None


def _atomic_op(access) -> str:
    """`atomicExch` for `atomicExch(lossy, 1)`, `::atomicCAS_block(...)`, `atomicMax_system(...)`."""
    op = access.text.split("(", 1)[0].strip().rsplit("::", 1)[-1]
    for scope in ("_block", "_system"):
        if op.endswith(scope):
            return op[:-len(scope)]
    return op


@rule("GM105", "contended-global-atomic", "warning",
      "A global atomic on one address that every thread (or every loop iteration) hits.",
      """
      What it does
          Flags global atomics whose address is the same for all threads of a block when more than
          one lane of a warp performs them, or when they sit inside a loop. An atomic that sets
          a value (exchange, compare-and-swap, min, max, and, or) under a condition on the data
          (or one the analyzer cannot read), outside loops, is not flagged: an error flag or a
          found result that the data decides how many threads raise (`if (x != x)
          atomicExch(nan_seen, 1)`). A compare-and-swap's own retry loop (`do { ... } while`)
          counts as one update.

      Why is this bad?
          Atomics to one address serialize in L2: a million threads adding to `out[0]` run one
          after another at a few per clock for the whole GPU.

      Example
          atomicAdd(out, x[i]);             // every thread, one address

      Use instead
          Reduce in registers and shared memory first (warp shuffles, then one thread per block),
          and issue one atomic per block.
      """)
def contended_atomic(ctx: KernelContext, r):
    for access, est in zip(ctx.accesses.accesses, ctx.estimates):
        if access.space != "global" or access.kind != "atomic":
            continue
        if ctx.accesses.thread_dependent(access.address) or access.address[0] == "?":
            continue    # per thread, or not known (`&cnt[p[i].cell]` of a header's struct): not one address
        lanes = est.active_lanes if est is not None else _guard_lanes(ctx, access)
        op = _atomic_op(access)
        # a compare-and-swap's own retry loop, `do { old = atomicCAS(p, ...); } while (...)`, is
        # one update: the loops around it are what repeat it
        loops = access.loops[:-1] if op == "atomicCAS" and access.loops and access.loops[-1].kind == "do" \
            else access.loops
        in_loop = bool(loops)
        if not in_loop and op in _SETTERS and any(S.has_load(g) or S.is_unknown(g) for g in access.guards):
            # a value set under a condition on the data, which says how many threads meet it (an
            # error flag: cuml's `if (back_cast != orig) atomicExch(lossy, 1)`; a found nonce)
            continue
        if (lanes is not None and lanes >= 2) or (in_loop and (lanes is None or lanes >= 2 or not access.guards)):
            detail = f"{lanes:.0f} lanes per warp request hit one address" if lanes else "one address for every thread"
            where = f" inside the loop at line {loops[-1].line}" if in_loop else ""
            yield ctx.finding(r, access.line, access.col,
                              f"global atomic `{access.text}` on a thread-invariant address{where}: {detail}; "
                              f"the updates serialize",
                              lanes_per_request=lanes, in_loop=in_loop)
