"""The compiler's merging of one thread's shared-memory accesses into 8- and 16-byte instructions.

nvcc's load/store vectorizer joins the accesses a thread makes to consecutive, aligned addresses
within one basic block into one LDS.64/LDS.128 (STS.64/STS.128): a register tile's
`rb[j] = Bs[k][c * 4 + j]` over an unrolled `j < 4` is one 16-byte load, not four. The bank model
must see the instruction the hardware runs: four scalar loads in 2-way conflict (16 threads 16
bytes apart) are one conflict-free LDS.128, which is what the H200 counts on register-tiled GEMMs.

What merges was read off ptxas's SASS (CUDA 13, sm_90; tests/test_vectorize.py compiles the
cases where nvdisasm is installed):
- an access whose address moves by its own size per iteration of a loop the compiler unrolls
  whole: a constant trip count with `#pragma unroll`, or without one a loop nest of at most 64
  iterations (longer loops are unrolled in part, by a factor that depends on the body: not
  modelled);
  `#pragma unroll N` merges at most N iterations, `#pragma unroll 1` none;
- the loop's body, inner loops included, is one basic block: no `if` over a memory access, no
  ternary over one, no inner loop with a run-time count, no barrier, break or continue, no call with a slow
  path (sinf, cosf, tanf, sqrtf, float division); no store to the array it loads (and no load of
  the array it stores) in the loop;
- the first address is provably a multiple of the width (the compiler's known bits: `t * 4 + j`
  of floats is 16-byte aligned, `t * 3 + j` is not, `t * 6 + j` is 8-byte aligned); a
  `__shared__` array itself is aligned as needed, an `extern __shared__` one too.
- neighbours: loads (or stores) of one array in one basic block, under the same loops and guards,
  at constant distances (`s[t * 4] + s[t * 4 + 1] + s[t * 4 + 2] + s[t * 4 + 3]`, in any order):
  a run of 2 or 4 consecutive elements from a provably aligned address is one access; an `if`
  whose arms access no memory does not split the block (the compiler makes it a select).
The walker (access._Walker) finds the loops (`unrolled`) and each access's basic block
(`blocks`); `merge_shared` rewrites the accesses.
"""
from __future__ import annotations

import dataclasses
from typing import Mapping

import numpy as np

from . import symbolic as S

Expr = tuple

_WIDTHS = (16, 8, 4)        # bytes of one LDS/STS, widest first
_FULL_UNROLL_ITERATIONS = 64   # a nest of at most this many iterations is unrolled whole without a pragma


def unroll_factor(trips: int, pragma: int | None, inner: int = 1) -> int:
    """Iterations of a loop of `trips` that end up in one basic block: the whole loop where the
    compiler unrolls it whole (`#pragma unroll`, given as `pragma` 0, or with no pragma (None) a
    nest of at most 64 iterations, `inner` of them inside one of its own), N for
    `#pragma unroll N`, else 1. (Longer loops without a pragma are unrolled in part, by a factor
    that depends on the body's size: not modelled.)"""
    if pragma is None:
        return trips if trips * inner <= _FULL_UNROLL_ITERATIONS else 1
    if pragma == 0:
        return trips
    return min(pragma, trips)


def linear_coefficient(e: Expr, var: str) -> int | None:
    """c where `e` is c * var + (terms without var), c an integer; None where var enters otherwise
    (var * n, var % 4, a load indexed by var)."""
    t = e[0]
    if t == "c":
        return 0
    if t == "s":
        return 1 if e[1] == var else 0
    if t == "b":
        op = e[1]
        if op == "+" or op == "-":
            a = linear_coefficient(e[2], var)
            if a is None:
                return None
            b = linear_coefficient(e[3], var)
            if b is None:
                return None
            return a + b if op == "+" else a - b
        if op == "*":
            a = linear_coefficient(e[2], var)
            b = linear_coefficient(e[3], var)
            if a is None or b is None:
                return None
            if a == 0 and b == 0:
                return 0 if var not in S.symbols(e) else None
            if a == 0 and e[2][0] == "c" and type(e[2][1]) is int:
                return e[2][1] * b
            if b == 0 and e[3][0] == "c" and type(e[3][1]) is int:
                return a * e[3][1]
            return None
        if op == "<<" and e[3][0] == "c" and type(e[3][1]) is int and 0 <= e[3][1] < 63:
            a = linear_coefficient(e[2], var)
            return None if a is None else a << e[3][1]
    if t == "u" and e[1] == "-":
        a = linear_coefficient(e[2], var)
        return None if a is None else -a
    return 0 if var not in S.symbols(e) else None


def trailing_zeros(e: Expr, known: Mapping[str, int]) -> int:
    """Low bits of `e` that are zero whatever the symbols' values (the compiler's known bits);
    `known` gives a symbol's own (a loop variable with a constant value). 64 for zero."""
    t = e[0]
    if t == "c":
        v = e[1]
        if type(v) is not int:
            return 0
        return 64 if v == 0 else min(64, (v & -v).bit_length() - 1)
    if t == "s":
        return known.get(e[1], 0)
    if t == "b":
        op = e[1]
        if op in ("+", "-", "|", "^"):
            return min(trailing_zeros(e[2], known), trailing_zeros(e[3], known))
        if op == "*":
            return min(64, trailing_zeros(e[2], known) + trailing_zeros(e[3], known))
        if op == "&":
            return max(trailing_zeros(e[2], known), trailing_zeros(e[3], known))
        if op == "<<" and e[3][0] == "c" and type(e[3][1]) is int and 0 <= e[3][1] < 64:
            return min(64, trailing_zeros(e[2], known) + e[3][1])
        return 0
    if t == "u" and e[1] == "-":
        return trailing_zeros(e[2], known)
    return 0


def vector_elements(address: Expr, elem_size: int, var: str, start: int, trips: int, factor: int) -> int:
    """Elements of consecutive iterations one instruction moves (1: none merged) for an access
    at `address` (bytes) in a loop over `var` = start, start + 1, ... (`trips` of them, `factor`
    of those in one basic block)."""
    if elem_size not in (1, 2, 4, 8) or factor < 2 or linear_coefficient(address, var) != elem_size:
        return 1
    # exact where it is a polynomial: `(t * 8 + j) - 1` at j = 1 is t * 8
    aligned = _known_zeros(S.substitute(address, {var: ("c", start)}))
    for width in _WIDTHS:
        v = width // elem_size
        if v >= 2 and trips % v == 0 and factor % v == 0 and aligned >= width.bit_length() - 1:
            return v
    return 1


def merge_shared(accesses: list, unrolled: Mapping[str, tuple[int, int, int]], blocks: list[int] | None = None) -> list:
    """The accesses as the compiler issues them: a shared load or store merged over an unrolled
    loop becomes one access of the merged width whose loop steps by the merged elements (upward
    from the loop's lowest value, whichever way it was written).
    unrolled: loop symbol -> (trips, iterations in one basic block, lowest value of the variable)
    of the loops whose body is one basic block (the walker's). blocks: per access, the basic
    block it is in (equal numbers: nothing between them splits one); with them, neighbours are
    merged too (`merge_neighbours`)."""
    if blocks is not None:
        accesses = merge_neighbours(accesses, blocks)
    if not unrolled:
        return accesses
    kinds: dict[tuple[str, str], set[str]] = {}
    for a in accesses:
        if a.space == "shared":
            for lp in a.loops:
                if lp.var in unrolled:
                    kinds.setdefault((lp.var, a.array), set()).add(a.kind)
    out = list(accesses)
    views: dict = {}    # one loops tuple per (loops, loop, elements): the models cache by identity
    for i, a in enumerate(accesses):
        if a.space != "shared" or a.kind not in ("load", "store") or not a.issued or S.is_unknown(a.address):
            continue
        # the innermost unrolled loop the address walks contiguously (`As[row + m][kk]` over an
        # inner `m` and an outer `kk`: merged over kk, the rows m apart stay apart)
        for depth in range(len(a.loops) - 1, -1, -1):
            lp = a.loops[depth]
            got = unrolled.get(lp.var)
            if got is None:
                continue
            if len(kinds[(lp.var, a.array)]) > 1 or lp.iter_symbol in S.symbols(a.address):
                break   # loads and stores of one array (or a walked pointer): kept in order, as written
            trips, factor, lowest = got
            v = vector_elements(a.address, a.elem_size, lp.var, lowest, trips, factor)
            if v > 1:
                key = (id(a.loops), depth, v)
                loops = views.get(key)
                if loops is None:
                    up = dataclasses.replace(lp, init=("c", lowest), step=("+=", ("c", v)),
                                             cond=("b", "<", ("s", lp.var), ("c", lowest + trips)))
                    loops = views[key] = a.loops[:depth] + (up,) + a.loops[depth + 1:]
                out[i] = dataclasses.replace(a, elem_size=a.elem_size * v, loops=loops)
                break
    return out


def merge_neighbours(accesses: list, blocks: list[int]) -> list:
    """Shared loads (or stores) of one array in one basic block, under the same loops and guards,
    at constant distances from each other (`s[t * 4] + s[t * 4 + 1] + s[t * 4 + 2] + ...`, in
    any order): a run of 2 or 4 consecutive elements from a provably aligned address is one
    access of their width, the first of them; the others issue nothing (`issued` False).
    Repeated addresses are left as written (shared memory read through `volatile` loads each time),
    and so is an array both loaded and stored in the block (`p[3] += ...; p[4] += ...`)."""
    groups: dict[tuple, list[int]] = {}
    kinds: dict[tuple, set[str]] = {}       # (array, loops, block) -> what is done to it there
    for i, a in enumerate(accesses):
        if a.space == "shared":
            kinds.setdefault((a.array, id(a.loops), blocks[i]), set()).add(a.kind)
        if (a.space == "shared" and a.kind in ("load", "store") and a.elem_size in (1, 2, 4, 8) and a.issued
                and not S.is_unknown(a.address) and not S.has_load(a.address)):
            groups.setdefault((a.array, a.kind, a.elem_size, id(a.loops), id(a.guards), blocks[i], a.function),
                              []).append(i)
    out = accesses
    for (array, _, _, loops, _, block, _), members in groups.items():
        if len(members) < 2 or len(kinds[(array, loops, block)]) > 1:
            continue    # loads and stores of one array in one block: kept in order, as written
        first = accesses[members[0]].address
        at: dict[int, int] = {}     # distance from the first -> the first access there
        for i in members:
            d = constant_difference(accesses[i].address, first)
            if d is not None and d not in at:
                at[d] = i
        if len(at) < 2:
            continue
        es = accesses[members[0]].elem_size
        taken: set[int] = set()
        for off in sorted(at):
            if off in taken:
                continue
            for width in _WIDTHS:
                v = width // es
                run = [off + k * es for k in range(v)]
                if v < 2 or not all(o in at and o not in taken for o in run) or \
                        _known_zeros(S.binop("+", first, ("c", off))) < width.bit_length() - 1:
                    continue
                if out is accesses:
                    out = list(accesses)
                lead = at[off]
                out[lead] = dataclasses.replace(accesses[lead], elem_size=width)
                for o in run[1:]:
                    out[at[o]] = dataclasses.replace(accesses[at[o]], issued=False)
                taken.update(run)
                break
    return out


_PROBES = np.random.default_rng(20261205).integers(0, 1 << 12, size=(64, 16))   # values to test a difference on


def constant_difference(a: Expr, b: Expr) -> int | None:
    """a - b where it is the same integer whatever the symbols' values, else None: exactly where
    both are polynomials, else by evaluating it at 16 random points (`(t % 16) * 4 + 1` against
    `(t % 16) * 4`)."""
    if a == b:
        return 0
    pa, pb = S.to_poly(a), S.to_poly(b)
    if pa is not None and pb is not None:
        diff = {m: pa.get(m, 0) - pb.get(m, 0) for m in set(pa) | set(pb)}
        diff = {m: c for m, c in diff.items() if c}
        if not diff:
            return 0
        return diff[()] if list(diff) == [()] else None
    names = sorted(S.symbols(a) | S.symbols(b))
    if len(names) > len(_PROBES):
        return None
    env = {n: _PROBES[k] for k, n in enumerate(names)}
    try:
        with np.errstate(all="ignore"):
            va, vb = S.evaluate(a, env), S.evaluate(b, env)
    except Exception:   # an operator the probes cannot take (a shift past 63): no claim
        return None
    if va is None or vb is None:
        return None
    d = np.asarray(va) - np.asarray(vb)
    if d.dtype.kind not in "iu" or d.size == 0 or not (d == d.flat[0]).all():
        return None
    return int(d.flat[0])


def _known_zeros(e: Expr) -> int:
    """trailing_zeros of an address, exactly where it is a polynomial (constants folded)."""
    poly = S.to_poly(e)
    if poly is not None:
        return min((trailing_zeros(("c", c), {}) for c in poly.values()), default=64)
    return trailing_zeros(e, {})
