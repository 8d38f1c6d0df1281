"""Control flow: barriers under divergent conditions, divergent branches in loops."""
from __future__ import annotations

import math
import re

import numpy as np

from .. import models
from .. import symbolic as S
from ..fix import Edit
from ..parse import _WORD_BYTES
from .._records import once_per_program
from . import FileContext, Finding, KernelContext, function_name_at, node_position, rule

BLOCK_BARRIERS = frozenset(("__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or",
                           "__barrier_sync"))


@rule("SY301", "divergent-syncthreads", "error",
      "`__syncthreads()` under a condition that differs between threads of a block.",
      """
      What it does
          Flags block-wide barriers inside `if`s, loops or after early `return`s whose condition
          depends on the thread (threadIdx, or values derived from it, or per-thread data). A
          condition that reads the thread but is the same for the whole block is not flagged (a
          grid-stride loop's `i - threadIdx.x < n`, or one rounded up to whole strides, PyTorch's
          `i < rounded_size`), nor one that no thread's index changes (`threadIdx.x >= blockDim.x`
          holds for none), nor, where a launch gives the block, one that all of its threads meet
          or none (`threadIdx.x < RADIX` launched with RADIX threads). After an early `return`
          the message says so: current GPUs count
          threads that exited as arrived, but CUDA leaves it undefined. That case is reported
          once per return, at the first barrier after it, with the count of the others.

      Why is this bad?
          Every thread of the block must reach the same barrier. If some threads skip it the
          kernel hangs or silently computes garbage: the behaviour is undefined.

      Example
          if (threadIdx.x < n) { s[threadIdx.x] = x[threadIdx.x]; __syncthreads(); }

      Use instead
          if (threadIdx.x < n) s[threadIdx.x] = x[threadIdx.x];
          __syncthreads();
      """)
def divergent_barrier(ctx: KernelContext, r):
    exits = ctx.accesses.exits
    after_return = []       # (barrier, the early return it is reported for)
    more: dict[int, int] = {}   # per early return (its id): the barriers after its first one
    for b in ctx.accesses.barriers:
        if b.name not in BLOCK_BARRIERS:
            continue
        bad = [g for g in b.guards if ctx.accesses.thread_dependent(g)]
        if bad:
            bad = [g for g in bad if not _same_in_block(g, b.loops, ctx.accesses)
                   and not (not ctx.block_guessed and _same_for_the_block(g, ctx.launch.block))]
        if bad and all(any(g is e for e in exits) for g in bad):
            # an early return before the barrier: an idiom that runs on current GPUs, which count
            # exited threads as arrived, and that CUDA still leaves undefined. Reported at the
            # first barrier after each return (one cause, one finding), with the count of the rest
            new = [g for g in bad if id(g) not in more]
            if new:
                after_return.append((b, new[0]))
                more[id(new[0])] = 0
            else:
                more[id(bad[-1])] += 1
        elif bad:
            yield ctx.finding(r, b.line, b.col,
                              f"{b.name}() is reached only by threads where `{_readable(bad[0])}` holds; "
                              f"threads that skip it leave the block deadlocked or undefined")
    for b, ret in after_return:
        n = more[id(ret)]
        rest = f"; {n} more barrier{'s' if n > 1 else ''} after it" if n else ""
        yield ctx.finding(r, b.line, b.col,
                          f"{b.name}() comes after an early return of the threads where "
                          f"`{_readable(ret[2] if ret[0] == 'b' else ret)}` holds; CUDA leaves a barrier that some threads of "
                          f"the block never reach undefined (current GPUs count exited threads as arrived; "
                          f"guard the work instead of returning){rest}")


def _same_for_the_block(guard: S.Expr, block: tuple[int, int, int]) -> bool:
    """Whether a condition of the thread indices and block size alone holds for all of a known
    block's threads or for none (`threadIdx.x < RADIX` where the launch's block is RADIX threads):
    then no thread skips what it guards. False where it reads anything else."""
    if not S.symbols(guard) <= _BLOCK_SYMBOLS:
        return False
    bx, by, bz = block
    n = bx * by * bz
    if n > 1024 or n < 1:
        return False
    t = np.arange(n, dtype=np.int64)
    env = {"threadIdx.x": t % bx, "threadIdx.y": (t // bx) % by, "threadIdx.z": t // (bx * by),
           "blockDim.x": bx, "blockDim.y": by, "blockDim.z": bz}
    with np.errstate(all="ignore"):
        v = S.evaluate(guard, env)
    if v is None:
        return False
    v = np.asarray(v)
    return v.dtype.kind in "biuf" and (bool(v.all()) or not v.any())


_BLOCK_SYMBOLS = frozenset(S.THREAD_SYMBOLS) | {d for d in S.DIM_SYMBOLS if d.startswith("blockDim.")}


def _readable(e: S.Expr) -> str:
    """A condition for a message: values the walk named at their line (`k@106`, `asm@47#2`) by
    their names alone."""
    return re.sub(r"@\d+(?:#\d+)?", "", S.to_str(e))[:80]


_RELATIONS = frozenset(("<", "<=", ">", ">=", "==", "!="))


def _same_in_block(guard: S.Expr, loops, ka) -> bool:
    """Whether a condition that reads the thread is still the same for every thread of a block:
    a comparison whose sides differ by no thread-dependent term once each loop variable is its
    closed form, `(i - threadIdx.x) < n` in `for (i = tid; i - threadIdx.x < n; i += stride)`
    (`i - threadIdx.x` is the block's offset), or `t < end + tid` in a loop from `start + tid`;
    one that no thread's index can change (`threadIdx.x >= blockDim.x`); a grid-stride loop's
    bound rounded up to whole strides. Negations and &&/|| of such comparisons are too."""
    if _whole_strides(guard, loops, ka):
        return True
    closed = {}
    for lp in loops:
        if lp.var and lp.iter_symbol and lp.step is not None and lp.step[0] in ("+=", "-=") \
                and not ka.thread_dependent(lp.step[1]):
            step = lp.step[1] if lp.step[0] == "+=" else S.binop("-", ("c", 0), lp.step[1])
            closed[lp.var] = S.binop("+", lp.init, S.binop("*", ("s", lp.iter_symbol), step))
    return _uniform(S.substitute(guard, closed) if closed else guard, ka)


def _uniform(e: S.Expr, ka) -> bool:
    if not ka.thread_dependent(e):
        return True
    if e[0] == "u" and e[1] == "!":
        return _uniform(e[2], ka)
    if e[0] != "b":
        return False
    op = e[1]
    if op in ("&&", "||"):
        return _uniform(e[2], ka) and _uniform(e[3], ka)
    if op in ("==", "!=") and e[3][0] == "c" and e[2][0] == "b" and e[2][1] in _RELATIONS:
        return _uniform(e[2], ka)         # `(c) == 0`: the negation an early return leaves
    if op not in _RELATIONS:
        return False
    difference = _poly(S.binop("-", e[2], e[3]), ka)     # its terms that do not cancel
    if difference is None:
        return False
    taint = ka.tainted
    if not any(x in taint or x.startswith("threadIdx") for monomial in difference for x in monomial):
        return True
    return _fixed_over_threads(op, difference, taint)


# Launch dimensions: each at least 1 in any launch
_DIMS = frozenset(S.DIM_SYMBOLS)


def _range(p: dict) -> tuple[float, float] | None:
    """The values a polynomial in launch dimensions can take, (lowest, highest), or None where it
    reads anything else."""
    lo = hi = 0.0
    for monomial, c in p.items():
        if not monomial:
            lo += c
            hi += c
        elif not all(x in _DIMS for x in monomial):
            return None
        elif c > 0:        # c * (a product of dimensions >= 1): from c up
            lo += c
            hi = math.inf
        else:
            lo = -math.inf
            hi += c
    return lo, hi


def _truth(op: str, lo: float, hi: float) -> bool | None:
    """`v op 0` for every v in [lo, hi]: True, False, or None where it depends on v."""
    if op == "<":
        return True if hi < 0 else False if lo >= 0 else None
    if op == "<=":
        return True if hi <= 0 else False if lo > 0 else None
    if op == ">":
        return True if lo > 0 else False if hi <= 0 else None
    if op == ">=":
        return True if lo >= 0 else False if hi < 0 else None
    return None


def _fixed_over_threads(op: str, difference: dict, taint) -> bool:
    """Whether `difference op 0`, linear in one threadIdx component t and otherwise a polynomial in
    launch dimensions, holds for all threads or for none: it does at t = 0 and at t = blockDim - 1
    alike (`threadIdx.x >= blockDim.x` is false for every thread; a line between two points on
    the same side of 0 stays there)."""
    thread = [(m, c) for m, c in difference.items() if any(x in taint or x.startswith("threadIdx") for x in m)]
    if len(thread) != 1 or len(thread[0][0]) != 1 or not thread[0][0][0].startswith("threadIdx."):
        return False
    (t,), a = thread[0]
    at_first = {m: c for m, c in difference.items() if m != (t,)}
    at_last = dict(at_first)
    dim = ("blockDim" + t[len("threadIdx"):],)
    at_last[dim] = at_last.get(dim, 0) + a
    at_last[()] = at_last.get((), 0) - a
    ranges = _range(at_first), _range(at_last)
    if ranges[0] is None or ranges[1] is None:
        return False
    first, last = _truth(op, *ranges[0]), _truth(op, *ranges[1])
    return first is not None and first == last


def _whole_strides(guard: S.Expr, loops, ka) -> bool:
    """`i < Q * S` in `for (i = blockIdx.x * blockDim.x + threadIdx.x; i < Q * S; i += S)` where S
    is at least the grid's threads and Q a whole number (PyTorch's `rounded_size`, the grid-stride
    bound rounded up so that every thread runs Q iterations and may meet a barrier in them): the
    same for every thread of the grid."""
    if guard[0] != "b" or guard[1] != "<" or guard[2][0] != "s" or guard[3][0] != "b" or guard[3][1] != "*":
        return False
    lp = next((x for x in loops if x.var == guard[2][1]), None)
    if lp is None or lp.step is None or lp.step[0] != "+=":
        return False
    step = S.to_poly(lp.step[1])
    if step is None or S.to_poly(lp.init) != _GLOBAL_X:
        return False
    spare = dict(step)      # S - gridDim.x * blockDim.x
    spare[_GRID_THREADS_X] = spare.get(_GRID_THREADS_X, 0) - 1
    spare = _range(spare)
    if spare is None or spare[0] < 0:
        return False
    for q, s in ((guard[3][2], guard[3][3]), (guard[3][3], guard[3][2])):
        if S.to_poly(s) == step and not _has_float(q) and not ka.thread_dependent(q):
            return True
    return False


_GLOBAL_X = {("blockDim.x", "blockIdx.x"): 1, ("threadIdx.x",): 1}
_GRID_THREADS_X = ("blockDim.x", "gridDim.x")


def _has_float(e: S.Expr) -> bool:
    """Whether a floating-point constant takes part (a quotient that need not be whole)."""
    if e[0] == "c":
        return isinstance(e[1], float)
    if e[0] == "f":
        return any(_has_float(x) for x in e[2])
    return any(_has_float(x) for x in e[2:])


def _poly(e: S.Expr, ka):
    """S.to_poly, where a part that does not read the thread (`T / B`) is one opaque term."""
    def invariant(x):
        if ka.thread_dependent(x):
            return None
        return x[1] if x[0] == "s" else "#" + S.to_str(x)
    return S.to_poly(e, invariant)


@rule("DV401", "divergent-branch-in-loop", "warning",
      "A branch inside a loop whose condition splits the lanes of a warp.",
      """
      What it does
          Evaluates each `if` condition inside a loop for every lane of a warp over the loop's
          first iterations and reports conditions that are true for some lanes and false for
          others, where the branch's body then runs in more warp passes than its lanes need
          (over 1.25x the warps they would fill: ceil(lanes / 32) per iteration). Bounds checks
          that only split the last block are not reported, nor a reduction tree's
          `if (tid < s)`, whose warps drop out whole until one warp is left, nor a branch that
          at most one lane of each warp takes (`if (lane == 0) atomicAdd(out, sum)`: a warp's
          leader writing the warp's result; gathering the leaders into one warp would cost a
          shared-memory trip and a barrier).

      Why is this bad?
          A warp runs both sides of a divergent branch one after the other, with the other lanes
          idle; in a hot loop that multiplies the loop's cost.

      Example
          for (int s = 1; s < blockDim.x; s *= 2)
              if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];

      Use instead
          for (int s = blockDim.x / 2; s > 0; s >>= 1)
              if (tid < s) sdata[tid] += sdata[tid + s];   // whole warps drop out together
      """)
def divergent_branch(ctx: KernelContext, r):
    for b in ctx.accesses.branches:
        if not b.loops or not ctx.accesses.thread_dependent(b.cond):
            continue
        if ctx.divergent(b) is not True:
            continue
        passes = ctx.warp_passes(b)
        if passes is not None and passes.passes <= passes.fewest * ctx.options.divergence_slack:
            continue    # whole warps take it or not: the lanes it leaves idle are no extra pass
        if passes is not None and passes.leaders_only:
            continue    # a warp's leader (`lane == 0`) writing the warp's result: packing those
            #            lanes into fewer warps would cost a shared-memory trip and a barrier
        waste = f" (its body runs in {passes.passes / passes.fewest:.1f}x the warp passes its lanes need)" \
            if passes is not None and passes.fewest else ""
        yield ctx.finding(r, b.line, b.col,
                          f"branch `{b.text[:60]}` splits warps inside the loop at line {b.loops[-1].line}: "
                          f"both paths run one after the other{waste}",
                          condition=S.to_str(b.cond)[:200],
                          **({"warp_passes": round(passes.passes, 2), "fewest_passes": round(passes.fewest, 2)}
                             if passes else {}))


# iterations a lone lane must run before the loop counts as serial work (a leader writing a few
# results in a short loop is fine)
SERIAL_ITERATIONS = 32


@rule("DV402", "serial-loop-in-one-lane", "warning",
      "A loop that only one lane of the block (or of each warp) runs while the others wait.",
      """
      What it does
          Finds loops inside a branch that at most one lane of each warp takes (`if (threadIdx.x
          == 0)`, `if (lane == 0)`) and that run at least 32 iterations with memory accesses in
          them: one thread does the work serially while the other lanes of its warp (and, for
          `threadIdx.x == 0`, every other warp of the block) sit idle.

      Why is this bad?
          A GPU hides latency with many threads in flight; a loop in one lane runs at the speed of
          a single slow core, one dependent load after another. Kernels that "finish up" with
          thread 0 summing n partial results, or that copy a row in thread 0, often spend most
          of their time there.

      Example
          if (threadIdx.x == 0) {
              float sum = 0.0f;
              for (int i = 0; i < n; ++i) sum += x[i];
              *out = sum;
          }

      Use instead
          float sum = 0.0f;
          for (int i = threadIdx.x; i < n; i += blockDim.x) sum += x[i];   // every lane a share
          sum = block_reduce(sum);                                         // shuffles + shared memory
          if (threadIdx.x == 0) *out = sum;
      """)
def serial_loop(ctx: KernelContext, r):
    # accesses in loops with enough requests for a lone lane to run 32 iterations (its iterations
    # are at most the requests: one each)
    candidates = [(a, est) for a, est in zip(ctx.accesses.accesses, ctx.estimates)
                  if est is not None and a.loops and a.space in ("global", "shared") and est.requests >= SERIAL_ITERATIONS]
    if not candidates:
        return
    for b in ctx.accesses.branches:
        depth = len(b.loops)
        # accesses in a loop inside the branch: the branch's condition guards them, and a loop
        # around them (not around the branch) starts within the branch's lines (an equal condition
        # inside the loop, `if (tid == 0) idxs[j] = k;`, is another branch's)
        inside = [(a, est) for a, est in candidates
                  if len(a.loops) > depth and b.line <= a.loops[depth].line <= b.end_line and a.loops[:depth] == b.loops
                  and any(g is b.cond or g == b.cond for g in a.guards)]
        if not inside or not ctx.accesses.thread_dependent(b.cond):
            continue
        passes = ctx.warp_passes(b)
        if passes is None or not passes.leaders_only or not passes.warps:
            continue
        done: set[int] = set()     # each loop once
        for a, est in inside:
            line = a.loops[depth].line
            iterations = est.requests / passes.warps     # one request per iteration in each lone lane
            if line in done or iterations < SERIAL_ITERATIONS:
                continue
            done.add(line)
            alone = passes.warps <= 1
            who = "one lane of the block" if alone else "one lane of each warp"
            idle = f"{ctx.launch.threads - 1} other threads of the block" if alone else "31 other threads of its warp"
            # a trip count from a size nobody gave (`i < ngram` at 4096) is a guess: the message says so
            loop = a.loops[depth]
            bound = S.symbols(loop.cond) if loop.cond is not None else frozenset()
            guessed = sorted(n for n in est.assumed if n in bound)
            at = (f" (at the assumed {', '.join(f'{n}={models.DEFAULT_PARAM_VALUE}' for n in guessed)}; fewer than "
                  f"{SERIAL_ITERATIONS} iterations would be harmless)") if guessed else ""
            yield ctx.finding(r, line, _keyword_col(ctx, line, a.loops[depth].kind),
                              f"only {who} runs the loop at line {line} (`{b.text[:60]}`): ~{iterations:.0f} "
                              f"iterations one after another while {idle} wait{at}; spread the iterations over the lanes",
                              iterations=round(iterations, 1), lanes=int(passes.warps))


def _keyword_col(ctx: KernelContext, line: int, kind: str) -> int:
    """1-based column of the loop's keyword on its line (`for`, `while`, `do`), else 1."""
    lines = ctx.program.source.split(b"\n")
    if not 0 < line <= len(lines):
        return 1
    text = lines[line - 1].decode("utf-8", "replace")
    m = re.search(rf"\b{re.escape(kind or 'for')}\b", text)
    return m.start() + 1 if m else 1


# warp intrinsics without a lane mask: gone on sm_70 and later (NVRTC: identifier "__shfl_down" is
# undefined; ptxas refuses __any/__all/__ballot's `vote` without .sync). Old code, and models trained
# on it, still write them.
# (no leading \b: a pattern that starts with a literal is searched for, not tried at every byte;
# the byte before a match is checked instead)
_LEGACY_WARP = re.compile(rb"__(?:shfl(?:_up|_down|_xor)?|ballot|any|all)\s*\(")
# tree-sitter's node types of text that is no code (a name found in one is no use of it)
NOT_CODE = frozenset(("comment", "string_literal", "string_content", "raw_string_literal", "char_literal",
                       "system_lib_string", "escape_sequence"))


@once_per_program
def removed_warp_intrinsics(program) -> list[tuple[str, object]]:
    """The calls of legacy warp intrinsics the build cannot take, (name, name's node) in source
    order: not in comments or strings, surely compiled (not under `#if CUDART_VERSION < 9000`, nor
    in a branch the compile does not take), not a name the file defines itself (a compatibility
    macro or function)."""
    src = program.source
    own = None
    found = []
    if b"__shfl" not in src and b"__ballot" not in src and b"__any" not in src and b"__all" not in src:
        return found        # the usual case, for a fraction of the regex's cost over a file's `__` words
    for m in _LEGACY_WARP.finditer(src):
        if m.start() and src[m.start() - 1] in _WORD_BYTES:
            continue
        name = src[m.start():m.end() - 1].rstrip().decode()
        if own is None:
            own = set(program.defines) | {f.name for f in program.functions}
            root = program.tree.root_node
        if name in own:
            continue
        node = root.descendant_for_byte_range(m.start(), m.start() + len(name))
        if node is None or node.type in NOT_CODE or not program.surely_compiled(node):
            continue
        if name in _VOTES and _unused_helper(program, node.start_byte):
            continue        # ptxas refuses the vote only in code it is given: a helper nobody calls is not
        found.append((name, node))
    return found


def _unused_helper(program, at: int) -> bool:
    """Whether the offset lies in a device function the file never names again (never called)."""
    f = program.function_at(at)
    if f is None or f.kind != "device":
        return False
    return len(re.findall(rb"\b" + re.escape(f.name.encode()) + rb"\b", program.source)) < 2


@rule("SY302", "warp-intrinsic-without-mask", "error",
      "A warp intrinsic without a lane mask (`__shfl_down`, `__ballot`, `__any`...), which sm_70 and later do not have.",
      """
      What it does
          Finds calls of the warp intrinsics CUDA 9 replaced by `_sync` forms: `__shfl`,
          `__shfl_up`, `__shfl_down`, `__shfl_xor`, `__ballot`, `__any`, `__all`. Calls in comments,
          in strings, under a conditional directive the build may not take (`#if CUDART_VERSION <
          9000`), or of a name the file defines itself (a compatibility macro) are not reported.

      Why is this bad?
          The build fails for sm_70 and later (every architecture cudaperf models): nvcc and NVRTC
          report `identifier "__shfl_down" is undefined`, and ptxas refuses `__ballot`, `__any` and
          `__all` ("Instruction 'vote' without '.sync' is not supported"). Since Volta's independent thread
          scheduling the lanes of a warp need not run together, so each call names the lanes that
          take part. Code written before CUDA 9, and models trained on it, still use them.

      Example
          for (int d = 16; d > 0; d /= 2) v += __shfl_down(v, d);

      Use instead
          for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffff, v, d);
          // 0xffffffff where every lane of the warp reaches the call; else the mask of those that do

      `--fix` writes the `_sync` form: shuffles with the full mask (what the legacy shuffle
      assumed), votes with `__activemask()` (the lanes the legacy vote counted).
      """, scope="file", fixable=True)
def legacy_warp_intrinsic(ctx: FileContext, r):
    program = ctx.program
    for name, node in removed_warp_intrinsics(program):
        line, col = node_position(program, node)
        kernel = function_name_at(program, node.start_byte)
        says = _COMPILER_SAYS["vote" if name in _VOTES else "shfl"].format(name=name)
        mask = _FIX_MASK["vote" if name in _VOTES else "shfl"]
        yield Finding(r.code, r.name, r.severity,
                      f"`{name}` has no lane mask: sm_70 and later do not have it (the build fails: {says}); call "
                      f"`{name}_sync(mask, ...)` with the lanes that take part (the fix: `{name}_sync({mask}, ...)`)",
                      program.path, line, col, kernel, {"intrinsic": name}, _sync_fix(program, node, name, mask, line, col))


# The fix's masks. A legacy vote counted the lanes active at the call: `__activemask()` is that, exactly.
# A legacy shuffle assumed the whole warp (a lane that did not take part gave an undefined value):
# the full mask says the same, and is what CUDA 9's own ports wrote.
_FIX_MASK = {"vote": "__activemask()", "shfl": "0xffffffff"}


def _sync_fix(program, node, name: str, mask: str, line: int, col: int) -> tuple:
    """`__shfl_down(v, d)` -> `__shfl_down_sync(0xffffffff, v, d)`: one edit of the name through its
    `(`, where the file has them as the parse saw them (not moved by a macro's expansion)."""
    src = program.source
    end = node.end_byte
    paren = end
    while paren < len(src) and src[paren] in b" \t":
        paren += 1
    if paren >= len(src) or src[paren:paren + 1] != b"(" or program.expansion_at(node.start_byte) is not None \
            or col != node.start_point[1] + 1:
        return ()
    old = src[node.start_byte:paren + 1].decode()
    return (Edit(line, col, old, f"{name}_sync({mask}, "),)


# what the build says of each (nvcc 13, sm_90): the shuffles are not declared; the votes are, as
# deprecated, and ptxas refuses their instruction
_VOTES = frozenset(("__ballot", "__any", "__all"))
_COMPILER_SAYS = {"shfl": 'identifier "{name}" is undefined',
                  "vote": "ptxas: instruction 'vote' without '.sync' is not supported on sm_70 and higher"}
