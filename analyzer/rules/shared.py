"""Shared memory: bank conflicts and missing barriers."""
from __future__ import annotations

import numpy as np

import re

from .. import models
from .. import symbolic as S
from ..parse import SCALAR_SIZES, namespaces_of
from .._records import once_per_program
from . import FileContext, Finding, KernelContext, assumed_text, rule
from .control import BLOCK_BARRIERS
from .memory import ALIGNED_VECTORS, VECTOR_FIELD


@rule("SM201", "shared-bank-conflict", "warning",
      "A shared-memory access whose lanes collide in the same bank.",
      """
      What it does
          Evaluates each lane's shared-memory address and counts wavefronts per warp request over
          32 banks of 4 bytes (lanes reading the same word are a broadcast; 8- and 16-byte accesses
          are served in 2 and 4 phases). Reports the average n-way conflict. An address that depends
          on a template value nothing in the file gives (a tile size, `row * BM`) is not judged: a
          note names the values (`// cudaperf: launch k<...>` or --arg gives them).

      Why is this bad?
          An n-way conflict serializes the request into n wavefronts: n times the shared-memory
          time for that instruction.

      Example
          __shared__ float tile[32][32];
          v = tile[threadIdx.x][threadIdx.y];   // column read: all 32 lanes in one bank

      Use instead
          __shared__ float tile[32][33];        // pad a row by one word
          A wmma or ldmatrix tile reads 16 bytes a lane, 8 lanes (8 rows) at a time: rows an odd
          multiple of 16 bytes apart do not conflict (`half As[64][32 + 8]`, ldm 40). All the fields
          of one element of a shared vector array accessed alike (`t[i].x`, `t[i].y` of a float2)
          are one access of its width, as nvcc makes them.
      """)
def bank_conflict(ctx: KernelContext, r):
    whole = _whole_vector_fields(ctx)
    for access, est in zip(ctx.accesses.accesses, ctx.estimates):
        if access.space != "shared" or est is None or not est.requests or id(access) in whole:
            continue
        if est.ways >= ctx.options.min_bank_ways and not ctx.unbound_template_values(access, est):
            what = {"load": "read", "store": "write", "atomic": "atomic"}[access.kind]
            hint = ""
            if "load_matrix_sync" in access.text or "ldmatrix" in access.text:
                # 8 lanes a phase, each a 16-byte row: the row pitch decides the banks (measured, bench/README.md)
                hint = ("; the tile's rows share banks: rows an odd multiple of 16 bytes apart do not "
                        "(ldm 24, 40 or 72 halves: pad the leading dimension) or swizzle")
            elif "store_matrix_sync" in access.text or "stmatrix" in access.text:
                hint = "; the tile's rows share banks: change the leading dimension (pad it) or swizzle"
            yield ctx.finding(r, access.line, access.col,
                              f"{est.ways:.1f}-way bank conflict on shared {what} `{access.text}`: "
                              f"{est.per_request:.1f} wavefronts/request, ideal {est.ideal_per_request:.1f}"
                              f"{assumed_text(est)}{hint}",
                              ways=round(est.ways, 3), wavefronts_per_request=round(est.per_request, 3),
                              ideal_wavefronts_per_request=round(est.ideal_per_request, 3), array=access.array)


def _whole_vector_fields(ctx: KernelContext) -> set[int]:
    """The shared accesses (ids) that are fields of one element of a vector-typed shared array
    accessed alike (`t[i].x += ...; t[i].y += ...;` of `__shared__ float2 t[256]`) and conflict no
    more than the vector's width explains: nvcc makes them one access of the element's width (OSKAR's
    beam pattern), which SM201 judges as such, not as 4-byte accesses 8 bytes apart."""
    types = {a.name: ctx.program.resolve_type(a.type)
             for a in (*ctx.program.globals_, *ctx.kernel.shared, *ctx.accesses.helper_shared) if a.space == "shared"}
    if not any(t in ALIGNED_VECTORS for t in types.values()):
        return set()    # (most kernels: no shared array of a vector type)
    by_element: dict = {}
    for access, est in zip(ctx.accesses.accesses, ctx.estimates):
        if access.space != "shared" or est is None or not access.elem_size:
            continue
        width = ALIGNED_VECTORS.get(types.get(access.array, ""), 0)
        m = VECTOR_FIELD.fullmatch(access.text) if width else None
        if m is not None and est.ways <= width // access.elem_size:
            by_element.setdefault((m.group(1).replace(" ", ""), access.array, access.kind, access.loops, width),
                                  []).append((m.group(2), access))
    out: set[int] = set()
    for (_, _, _, _, width), fields in by_element.items():
        if {f for f, _ in fields} == set("xyzw"[:width // fields[0][1].elem_size]):
            out.update(id(a) for _, a in fields)
    return out


def _cross_thread(ctx: KernelContext, store, load, fenced: tuple[int, int] = (0, 0),
                  warps_apart: bool = False) -> bool | None:
    """Does some thread read an element that another thread wrote (with `warps_apart`, a thread of
    another warp)? None if we cannot tell. Both are evaluated at the first sampled iteration of their
    loops, except store.loops[a:b] for `fenced` (a, b): those at their last iteration (_last_iteration)."""
    launch = ctx.launch
    env0 = models.thread_env(launch, 1024)
    n = env0["threadIdx.x"].shape[0]
    needed = models.access_symbols(store) | models.access_symbols(load)  # loop bounds too: iterations need them
    env, _ = models.bind_params(env0, launch.args, needed, ctx.param_defaults)
    loops = load.loops if len(load.loops) >= len(store.loops) else store.loops
    points = models.iterations(loops, env, 2, [4])
    if fenced[1] > fenced[0]:
        point = _last_iteration(store.loops, env, *fenced)
        if point is None:
            return None
        points = [(point, 1.0)]
    for point, _w in points:
        sa = S.evaluate(store.address, point)
        la = S.evaluate(load.address, point)
        if sa is None or la is None:
            return None
        sa, la = np.asarray(sa), np.asarray(la)
        if not (models.representable(sa) and models.representable(la)):
            return None
        sa = np.broadcast_to(sa, (n,))
        la = np.broadcast_to(la, (n,))
        sm = models.active_mask(store.guards, point, n)
        lm = models.active_mask(load.guards, point, n)
        return _other_writer(sa.astype(np.int64), np.flatnonzero(sm), la.astype(np.int64), np.flatnonzero(lm),
                             warps_apart)
    return None


def _other_writer(sa: np.ndarray, writers: np.ndarray, la: np.ndarray, readers: np.ndarray,
                  warps_apart: bool = False) -> bool:
    """Whether some reader's element (la[t], t in readers) is written by a writer other than t
    (sa[w], w in writers): writers sorted by address, each read's run of equal addresses looked up.
    With `warps_apart`, by a writer of another warp than t's (threads t // 32)."""
    if not len(writers) or not len(readers):
        return False
    if warps_apart:
        # an address and a warp as one key: a reader's run of writers of its address, less those of its warp
        span = int(max(sa[writers].max(), la[readers].max()) - min(sa[writers].min(), la[readers].min())) + 1
        base = min(sa[writers].min(), la[readers].min())
        if span > (1 << 40):
            return _other_writer(sa, writers, la, readers)
        keys = np.sort((sa[writers] - base) * 64 + writers // 32)
        addr = np.sort(sa[writers])
        want, mine = la[readers], (la[readers] - base) * 64 + readers // 32
        same_addr = np.searchsorted(addr, want, "right") - np.searchsorted(addr, want, "left")
        same_warp = np.searchsorted(keys, mine, "right") - np.searchsorted(keys, mine, "left")
        return bool((same_addr > same_warp).any())
    order = np.argsort(sa[writers], kind="stable")
    addr, who = sa[writers][order], writers[order]
    want = la[readers]
    lo = np.searchsorted(addr, want, "left")
    count = np.searchsorted(addr, want, "right") - lo
    if (count >= 2).any():
        return True
    one = count == 1
    return bool((who[lo[one]] != readers[one]).any())


def _last_iteration(loops, env: dict, a: int, b: int) -> dict | None:
    """The environment of the first iteration of loops[:a], the last of loops[a:b] (each in the
    last of the one around it) and the first of loops[b:]; None where a last iteration is not
    known (models.last_iteration) or a loop does not run."""
    for point, _w in models.iterations(loops[:a], env, 2, [4]):
        env = point
        break
    else:
        return None
    for loop in loops[a:b]:
        env = models.last_iteration(loop, env)
        if env is None:
            return None
    for point, _w in models.iterations(loops[b:], env, 2, [4]):
        return point
    return None


def _fenced(barrier, store, load) -> tuple[int, int]:
    """(a, b): the store's loops store.loops[a:b] hold the barrier before it and not the load, so
    only their last iteration's store is still unordered when the load runs (each earlier one
    met that barrier again in the next iteration). (0, 0) where there are none."""
    if barrier is None:
        return 0, 0
    bl, sl, ll = barrier.loops, store.loops, load.loops
    b = len(bl)
    if b == 0 or b > len(sl) or any(x is not y for x, y in zip(bl, sl)):
        return 0, 0
    a = 0
    while a < min(len(sl), len(ll)) and sl[a] is ll[a]:
        a += 1
    return (a, b) if b > a else (0, 0)


@rule("SM202", "shared-race-missing-barrier", "error",
      "Shared memory written by one thread and read by another with no barrier in between.",
      """
      What it does
          Follows shared-memory stores and loads in program order; when a load reads an element
          that another thread of the block stored since the last `__syncthreads()` (or
          `__syncwarp()`), it reports a race, and when a store overwrites an element another
          thread read since then (`s[t] = s[t + i]` in a loop: thread t - i may not have read it
          yet). A statement macro whose definition is not in the file and whose name says sync or
          barrier (`SYNC_WARPS;`) is taken as a barrier, with a note, as are inline PTX barriers
          (`bar.sync`, `bar.arrive`, `mbarrier.try_wait`). A read is paired with the latest write
          it races with; the reads of one write in one barrier interval are one finding, at the
          first, naming the others' lines. A warp collective (`__shfl_sync`, `__ballot_sync`)
          orders its lanes' reads before it ahead of their writes after it: only a write of
          another warp's thread races with them. In a loop whose barriers all come before some
          reads, the next pass's writes before its first barrier race with those reads too.

      Why is this bad?
          Without a barrier nothing orders the other thread's store before this load: the result
          depends on scheduling. `volatile` does not order threads on Volta and later GPUs
          (independent thread scheduling).

      Example
          s[threadIdx.x] = x[i];
          y[i] = s[threadIdx.x + 1];      // written by the neighbouring thread

      Use instead
          s[threadIdx.x] = x[i];
          __syncthreads();
          y[i] = s[threadIdx.x + 1];
      """)
def shared_race(ctx: KernelContext, r):
    pending: list = []      # stores since the last barrier
    reads: list = []        # loads since the last barrier
    reported = set()
    raw: list = []          # this interval's findings: a read of another thread's write
    war: dict = {}          # array -> this interval's first write over another thread's read
    barrier = None
    # which thread touches which element depends on the block: say where an assumed one came from
    block = "" if not ctx.block_guessed else f" (block {'x'.join(map(str, ctx.launch.block))} from {ctx.launch_source})"
    warp_ordered = 0        # reads[:warp_ordered] came before a warp collective: its own lanes' later writes follow them
    for ev in ctx.accesses.events:
        if ev.kind == "barrier":
            yield from _interval(raw, war, ctx, r, block)
            pending.clear()
            reads.clear()
            warp_ordered = 0
            barrier = ev.item
            continue
        if ev.kind == "collective":
            warp_ordered = len(reads)
            continue
        acc = ev.item
        if acc.kind in ("store", "atomic"):
            pending.append(acc)
            if acc.kind == "store" and acc.array not in war:
                for k, ld in enumerate(reads):
                    if ld.array != acc.array or ld.address == acc.address or (ld.line, acc.line) in reported:
                        continue
                    if ld.loops != acc.loops[:len(ld.loops)] and barrier is not None and \
                            any(lp in barrier.loops for lp in ld.loops if lp not in acc.loops):
                        continue    # a read in a loop the write is after, whose passes a barrier splits: only
                        # its last pass shares the write's interval, and the check evaluates its first
                    if _cross_thread(ctx, acc, ld, warps_apart=k < warp_ordered):
                        reported.add((ld.line, acc.line))
                        war[acc.array] = ctx.finding(
                            r, acc.line, acc.col,
                            f"shared write `{acc.text}` may overwrite an element another thread reads at line {ld.line} "
                            f"(`{ld.text}`) with no barrier in between: read into a register, __syncthreads(), "
                            f"then write (or __syncwarp() within one warp){block}",
                            array=acc.array, read_line=ld.line)
                        break
            continue
        reads.append(acc)
        # the latest write it races with: the barrier goes between that one and the read
        for st in reversed(pending):
            if st.array != acc.array or st.address == acc.address or (acc.line, st.line) in reported:
                continue
            if acc.kind == "atomic" or st.kind == "atomic":
                continue
            if _cross_thread(ctx, st, acc, _fenced(barrier, st, acc)):
                reported.add((acc.line, st.line))
                raw.append((acc, st))
                break
    yield from _interval(raw, war, ctx, r, block)
    yield from _next_pass(ctx, r, block, reported)


def _next_pass(ctx: KernelContext, r, block: str, reported: set):
    """A loop whose barriers all come before some shared reads: the next pass's writes before its
    first barrier share an interval with them (furthest point sampling's `old = s[0];` after the
    barrier, and the next pass's `s[t] = ...` before it: thread 0 overwrites s[0] while a slower warp
    may not have read it). Addresses that do not move with the loop, a finding a loop and array."""
    events = ctx.accesses.events
    loops = []
    for ev in events:
        if ev.kind == "barrier" and ev.item.name in BLOCK_BARRIERS:
            for lp in ev.item.loops:
                if not any(lp is x for x in loops):
                    loops.append(lp)
    for lp in loops:
        inside = [ev for ev in events if ev.kind != "collective" and any(lp is x for x in ev.item.loops)]
        marks = [i for i, ev in enumerate(inside) if ev.kind == "barrier"]
        if not marks:
            continue
        moving = {lp.var, lp.iter_symbol} - {None, ""}
        head = [ev.item for ev in inside[:marks[0]] if ev.kind == "access" and ev.item.kind == "store"
                and ev.item.space == "shared" and not (S.symbols(ev.item.address) & moving)]
        tail = [ev.item for ev in inside[marks[-1] + 1:] if ev.kind == "access" and ev.item.kind == "load"
                and ev.item.space == "shared" and not (S.symbols(ev.item.address) & moving)]
        done = set()
        for st in head:
            for ld in tail:
                if ld.array != st.array or ld.address == st.address or st.array in done \
                        or (ld.line, st.line) in reported:
                    continue
                if _cross_thread(ctx, st, ld):
                    reported.add((ld.line, st.line))
                    done.add(st.array)
                    yield ctx.finding(
                        r, st.line, st.col,
                        f"shared write `{st.text}` in the next pass of the loop at line {lp.line} may overwrite an "
                        f"element another thread reads at line {ld.line} (`{ld.text}`) after the loop's last barrier: "
                        f"add __syncthreads() at the end of the loop's body{block}",
                        array=st.array, read_line=ld.line)


def _interval(raw: list, war: dict, ctx: KernelContext, r, block: str):
    """A barrier interval's findings, and the lists emptied for the next: the reads of another
    thread's write, one finding per write (at its first such read, naming the other reads' lines:
    one missing barrier before a table's many reads is one finding), and a write over another
    thread's read only on an array with no such read (a warp-synchronous reduction's steps race
    both ways; its reads say it once a step)."""
    by_write: dict = {}
    for acc, st in raw:
        by_write.setdefault(id(st), (st, []))[1].append(acc)
    found = []
    for st, reads in by_write.values():
        acc = reads[0]
        lines = sorted({a.line for a in reads[1:]} - {acc.line})
        also = ""
        if lines:
            shown = ", ".join(map(str, lines[:_SHOWN_LINES])) + (f" and {len(lines) - _SHOWN_LINES} more"
                                                                 if len(lines) > _SHOWN_LINES else "")
            also = f"; so may the reads at line{'s' if len(lines) > 1 else ''} {shown}"
        found.append(ctx.finding(r, acc.line, acc.col,
                                 f"shared read `{acc.text}` may see another thread's write at line {st.line} "
                                 f"(`{st.text}`) with no barrier in between: add __syncthreads() "
                                 f"(or __syncwarp() within one warp){block}{also}",
                                 array=acc.array, write_line=st.line,
                                 **({"accesses": len(reads)} if len(reads) > 1 else {})))
    raced = {acc.array for acc, _ in raw}
    found += [f for array, f in war.items() if array not in raced]
    raw.clear()
    war.clear()
    yield from found


_SHOWN_LINES = 8    # a grouped finding's other lines named, the rest counted


# Spellings of one type (`unsigned` and `unsigned int` do not conflict). The sized names whose
# type differs by platform or header (`int64_t` is `long` on Linux and `long long` on Windows;
# `bf16`, `at::Half` are a project's own) are not compared.
_SAME_TYPE = {"unsigned": "unsigned int", "signed": "int", "signed int": "int", "short int": "short",
              "unsigned short int": "unsigned short", "long int": "long", "unsigned long int": "unsigned long",
              "long long int": "long long", "unsigned long long int": "unsigned long long",
              "int8_t": "signed char", "uint8_t": "unsigned char", "int16_t": "short", "uint16_t": "unsigned short",
              "int32_t": "int", "uint32_t": "unsigned int", "half": "__half", "half2": "__half2",
              "nv_bfloat16": "__nv_bfloat16", "nv_bfloat162": "__nv_bfloat162"}
_UNCERTAIN = frozenset(("int64_t", "uint64_t", "size_t", "ptrdiff_t", "uint", "bf16", "at::Half", "at::BFloat16",
                        "c10::Half"))
_CERTAIN = frozenset(t for t in SCALAR_SIZES if t not in _UNCERTAIN and t not in _SAME_TYPE) | frozenset(
    _SAME_TYPE.values())


def _canonical(program, type_name: str) -> str | None:
    """The type a declaration's type names, spelled one way; None where that is not certain (a
    typedef from a header, a platform-sized name)."""
    t = program.resolve_type(type_name)
    t = _SAME_TYPE.get(t, t)
    return t if t in _CERTAIN or t in program.structs else None


def _extern_declaration(program, arr):
    """The identifier node of an `extern __shared__` array's declaration (SharedArray has its line)."""
    src = program.source
    starts = program.line_starts()
    if not 0 < arr.line <= len(starts):
        return None
    start = starts[arr.line - 1]
    m = re.compile(rb"\bextern\b[^;{}]*?\b(" + re.escape(arr.name.encode()) + rb")\s*\[").search(
        src, start, start + 400)
    return program.tree.root_node.descendant_for_byte_range(m.start(1), m.end(1)) if m else None


@once_per_program
def extern_shared_conflicts(program) -> list[tuple[int, int, str, str]]:
    """`extern __shared__` arrays of one name and scope with two element types (in two functions,
    or in one template kernel instantiated with two types): every such array of a file is one
    variable, and the build fails. (line, column, function, what) of each second declaration."""
    arrays = [(f, a) for f in program.functions if f.kind != "host" for a in f.shared if a.extern and a.space == "shared"]
    arrays += [(None, g) for g in program.globals_ if g.extern and g.space == "shared"]
    if not arrays or (len(arrays) == 1 and not (arrays[0][0] and arrays[0][1].type in arrays[0][0].template_params)):
        return []
    seen: dict[tuple, list] = {}      # (namespaces, name) -> [(type, description, line, col, function)]
    for f, a in arrays:
        node = _extern_declaration(program, a)
        if node is None or not program.surely_compiled(node):
            continue
        line, col = node.start_point[0] + 1, program.original_column(node.start_point[0] + 1, node.start_point[1] + 1)
        fn = f.name if f else ""
        types = []
        if f and a.type in f.template_params:
            if f.kind != "global":
                continue        # a device template's arguments are deduced at its calls: not known here
            at = list(f.template_params).index(a.type)
            uses = [(l.template_args, l.line) for l in program.launches if l.kernel == f.name]
            uses += [(i.template_args, i.line) for i in program.instantiations if i.kernel == f.name]
            for args, use_line in uses:
                t = _canonical(program, args[at]) if len(args) > at else None
                if t is not None:
                    types.append((t, f"{t} (as {f.name}<{', '.join(args)}>, line {use_line})"))
        else:
            t = _canonical(program, a.type)
            if t is not None:
                types.append((t, f"{t} (line {line})"))
        group = seen.setdefault((namespaces_of(node), a.name), [])
        group.extend((t, what, line, col, fn) for t, what in types)
    out = []
    for (_, name), group in seen.items():
        first = group[0] if group else None
        other = next((g for g in group if g[0] != first[0]), None) if first else None
        if other is None:
            continue
        out.append((other[2], other[3], other[4],
                    f"`extern __shared__` array `{name}` is {first[1]} and {other[1]}: a file's extern shared arrays "
                    f"of one name are one variable, so the build fails (declaration is incompatible with previous "
                    f"\"{name}\"); give each its own name, or declare `extern __shared__ __align__(16) unsigned "
                    f"char smem[]` once and cast it (`T* {name} = reinterpret_cast<T*>(smem);`)"))
    return out


@rule("SM203", "conflicting-extern-shared", "error",
      "`extern __shared__` arrays of one name with different element types, which do not compile.",
      """
      What it does
          Collects a file's `extern __shared__` arrays (in kernels, device functions and at file
          scope) by name and namespace, with their element types; a template kernel's array of a
          template type (`extern __shared__ T s[]`) takes the type of each launch
          (`k<double><<<...>>>`) and explicit instantiation. Reports a name with two types, at the
          second. Types that a header decides (a typedef the file does not define, `int64_t`) are
          not compared, nor declarations under a conditional directive the build may not take.

      Why is this bad?
          An `extern __shared__` array is one variable for the whole file (the block's dynamic
          shared memory), so two declarations of one name must agree on its type: nvcc and NVRTC
          fail with "declaration is incompatible with previous". The classic case is a templated
          reduction's `extern __shared__ T sdata[]` launched for float and for double.

      Example
          template <typename T> __global__ void reduce(const T* x, T* out) {
            extern __shared__ T sdata[];
            ...
          }
          reduce<float><<<g, b, b * 4>>>(xf, of);
          reduce<double><<<g, b, b * 8>>>(xd, od);

      Use instead
          template <typename T> __global__ void reduce(const T* x, T* out) {
            extern __shared__ __align__(16) unsigned char smem[];
            T* sdata = reinterpret_cast<T*>(smem);
            ...
          }
      """, scope="file")
def conflicting_extern_shared(ctx: FileContext, r):
    for line, col, fn, message in extern_shared_conflicts(ctx.program):
        yield Finding(r.code, r.name, r.severity, message, ctx.program.path, line, col, fn)
