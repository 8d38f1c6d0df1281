"""Small symbolic expressions over thread, block, loop and parameter symbols.

Expressions are nested tuples (cheap to build, hashable, picklable):

    ("c", value)              constant
    ("s", name)               symbol: "threadIdx.x", "blockDim.y", "n", a loop variable...
    ("b", op, left, right)    binary operator, C semantics
    ("u", op, operand)        unary operator: "-", "!", "~"
    ("?:", cond, a, b)        conditional
    ("f", name, (args...))    call: min/max/abs... are evaluated, others are opaque
    ("ld", array, index)      a value loaded from memory: differs per thread if its index does
    ("?", reason)             unknown

Two things are done with them: `evaluate` over numpy arrays of all threads at
once (the models use it to get each lane's address), and `to_poly` for an
exact affine/polynomial form where one exists (for display and checks).
"""
from __future__ import annotations

import operator
from typing import Any, Mapping

import numpy as np

Expr = tuple

UNKNOWN: Expr = ("?", "unknown")

THREAD_SYMBOLS = ("threadIdx.x", "threadIdx.y", "threadIdx.z")
BLOCK_SYMBOLS = ("blockIdx.x", "blockIdx.y", "blockIdx.z")
DIM_SYMBOLS = ("blockDim.x", "blockDim.y", "blockDim.z", "gridDim.x", "gridDim.y", "gridDim.z")
BUILTIN_SYMBOLS = frozenset(THREAD_SYMBOLS + BLOCK_SYMBOLS + DIM_SYMBOLS + ("warpSize",))
INT64_LIMIT = 1 << 63   # the values a C integer holds: -INT64_LIMIT .. INT64_LIMIT - 1


def ndim(x) -> int:
    """np.ndim(x), cheaply for the values evaluation meets: on a Python number np.ndim raises and
    catches an AttributeError each call."""
    if isinstance(x, np.ndarray):
        return x.ndim
    t = type(x)
    if t is int or t is float or t is bool or isinstance(x, np.generic):
        return 0
    return np.ndim(x)


def shift_scalar(left: bool, a, b):
    """`a << b` (left) or `a >> b` on scalars, or None where C leaves it undefined (a count
    outside 0..63) or the value is beyond int64 (`1 << 10**12` would not fit in memory)."""
    if not (0 <= b < 64 and -INT64_LIMIT <= a < INT64_LIMIT):
        return None
    return int(a) << int(b) if left else int(a) >> int(b)


def const(v: int | float) -> Expr:
    return ("c", v)


def sym(name: str) -> Expr:
    return ("s", name)


def is_const(e: Expr) -> bool:
    return e[0] == "c"


def binop(op: str, a: Expr, b: Expr) -> Expr:
    """Build a binary node, folding constants and trivial identities."""
    if a[0] == "?" or b[0] == "?":
        return a if a[0] == "?" else b
    if a[0] == "c" and b[0] == "c":
        v = _apply(op, a[1], b[1])
        if v is not None:
            return ("c", v)
    if op == "+":
        if a == ("c", 0):
            return b
        if b == ("c", 0):
            return a
    elif op == "-" and b == ("c", 0):
        return a
    elif op == "*":
        if a == ("c", 1):
            return b
        if b == ("c", 1):
            return a
        if a == ("c", 0) or b == ("c", 0):
            return ("c", 0)
    elif op == "/" and b == ("c", 1):
        return a
    return ("b", op, a, b)


# Expressions are shared, immutable tuples: the same objects are asked about again and
# again, and a new expression is mostly old subexpressions under a new root. A cache keyed by
# the expression (lru_cache) hashes the whole tree on every call and at every level of the
# recursion; these caches are keyed by the object's id instead (each entry keeps its object
# alive, so the id cannot be reused while the entry exists), with the same answers.
_MEMO_LIMIT = 1 << 15
_SYMBOLS: dict[int, tuple] = {}


def size(e: Expr) -> int:
    """Node count (shared subexpressions counted where each occurs): what `larger_than` bounds,
    which is what the walker asks. Exact and without a memo; for small expressions and tests."""
    t = e[0]
    if t == "b":
        return 1 + size(e[2]) + size(e[3])
    if t == "u" or t == "ld":
        return 1 + size(e[2])
    if t == "?:":
        return 1 + size(e[1]) + size(e[2]) + size(e[3])
    if t == "f":
        v = 1
        for a in e[2]:
            v += size(a)
        return v
    return 1


def larger_than(e: Expr, limit: int) -> bool:
    """size(e) > limit, found by visiting at most limit + 1 nodes and no memo: the walker asks
    this once of each value it defines, nearly all of them new and small, where a memo of sizes
    cost more than the count."""
    return _count(e, limit + 1) > limit


def _count(e: Expr, budget: int) -> int:
    """size(e) if it is below `budget`, else some number >= budget."""
    if budget <= 1:
        return 1    # a node counts 1: the budget is reached (and deep spines are not walked)
    t = e[0]
    if t == "b":
        n = 1 + _count(e[2], budget - 1)
        if n >= budget:
            return n
        return n + _count(e[3], budget - n)
    if t == "u" or t == "ld":
        return 1 + _count(e[2], budget - 1)
    if t == "?:":
        n = 1
        for i in range(1, 4):
            n += _count(e[i], budget - n)
            if n >= budget:
                return n
        return n
    if t == "f":
        n = 1
        for a in e[2]:
            n += _count(a, budget - n)
            if n >= budget:
                return n
        return n
    return 1


_EMPTY: frozenset[str] = frozenset()


def forget() -> None:
    """Drop the memos (`lint_source` calls this when a file is done). Their entries keep a
    file's expressions alive: left to the size limit, tens of thousands of them pile up in
    the collector's youngest generation and make each of its passes cost milliseconds."""
    _SYMBOLS.clear()
    _EVALUABLE.clear()
    _UNKNOWNS.clear()
    _ONE.clear()


_ONE: dict[str, frozenset[str]] = {}   # name -> frozenset((name,)): one set per name, not per call


def symbols(e: Expr) -> frozenset[str]:
    """Free symbols; loads contribute the symbols of their index (their value varies with it)."""
    t = e[0]
    if t == "s":
        v = _ONE.get(e[1])
        if v is None:
            if len(_ONE) >= _MEMO_LIMIT:
                _ONE.clear()
            v = _ONE[e[1]] = frozenset((e[1],))
        return v
    if t == "c" or t == "?":
        return _EMPTY
    hit = _SYMBOLS.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    if t == "b":
        a, b = symbols(e[2]), symbols(e[3])
        # reuse a side when the union adds nothing (a new set per node costs more than the test)
        v = a if (a is b or not b) else b if not a else a | b
    elif t == "u" or t == "ld":
        v = symbols(e[2])
    elif t == "?:":
        v = symbols(e[1]) | symbols(e[2]) | symbols(e[3])
    elif t == "f":
        v = _EMPTY
        for a in e[2]:
            v = v | symbols(a)
    else:
        v = _EMPTY
    if len(_SYMBOLS) >= _MEMO_LIMIT:
        _SYMBOLS.clear()
    _SYMBOLS[id(e)] = (e, v)
    return v


def has_load(e: Expr) -> bool:
    t = e[0]
    if t == "ld":
        return True
    if t == "b":
        return has_load(e[2]) or has_load(e[3])
    if t == "u":
        return has_load(e[2])
    if t == "?:":
        return has_load(e[1]) or has_load(e[2]) or has_load(e[3])
    if t == "f":
        for a in e[2]:
            if has_load(a):
                return True
    return False


_UNKNOWNS: dict[int, tuple] = {}


def is_unknown(e: Expr) -> bool:
    t = e[0]
    if t == "?" or t == "ld":
        return True
    if t == "c" or t == "s":
        return False
    hit = _UNKNOWNS.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    if t == "b":
        v = is_unknown(e[2]) or is_unknown(e[3])
    elif t == "u":
        v = is_unknown(e[2])
    elif t == "?:":
        v = is_unknown(e[1]) or is_unknown(e[2]) or is_unknown(e[3])
    elif t == "f":
        v = e[1] not in _CALLS
        for a in e[2]:
            v = v or is_unknown(a)
    else:
        v = False
    if len(_UNKNOWNS) >= _MEMO_LIMIT:
        _UNKNOWNS.clear()
    _UNKNOWNS[id(e)] = (e, v)
    return v


def substitute(e: Expr, mapping: Mapping[str, Expr]) -> Expr:
    t = e[0]
    if t == "s":
        return mapping.get(e[1], e)
    if t == "b":
        return binop(e[1], substitute(e[2], mapping), substitute(e[3], mapping))
    if t == "u":
        inner = substitute(e[2], mapping)
        return ("c", _unary(e[1], inner[1])) if inner[0] == "c" and _unary(e[1], inner[1]) is not None else ("u", e[1], inner)
    if t == "?:":
        return ("?:", substitute(e[1], mapping), substitute(e[2], mapping), substitute(e[3], mapping))
    if t == "f":
        return ("f", e[1], tuple(substitute(a, mapping) for a in e[2]))
    if t == "ld":
        return ("ld", e[1], substitute(e[2], mapping))
    return e


# ---------------------------------------------------------------- evaluation

def _cdiv(a: Any, b: Any) -> Any:
    """C division: truncates toward zero for integers."""
    if isinstance(a, (float, np.floating)) or isinstance(b, (float, np.floating)) or (
        isinstance(a, np.ndarray) and a.dtype.kind == "f") or (isinstance(b, np.ndarray) and b.dtype.kind == "f"):
        return np.true_divide(a, b)
    q = np.floor_divide(np.abs(a), np.abs(b))
    return np.where((np.sign(a) * np.sign(b)) < 0, -q, q) if ndim(a) or ndim(b) else (
        -q if (a < 0) != (b < 0) else q)


def _cmod(a: Any, b: Any) -> Any:
    return a - _cdiv(a, b) * b


def _apply(op: str, a: Any, b: Any) -> Any:
    try:
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            if np.any(np.asarray(b) == 0):
                return None
            return _cdiv(a, b)
        if op == "%":
            if np.any(np.asarray(b) == 0):
                return None
            return _cmod(a, b)
        if op in ("<<", ">>"):
            if ndim(a) or ndim(b):
                return np.left_shift(a, b) if op == "<<" else np.right_shift(a, b)
            return shift_scalar(op == "<<", a, b)
        if op == "&":
            return np.bitwise_and(a, b) if ndim(a) or ndim(b) else int(a) & int(b)
        if op == "|":
            return np.bitwise_or(a, b) if ndim(a) or ndim(b) else int(a) | int(b)
        if op == "^":
            return np.bitwise_xor(a, b) if ndim(a) or ndim(b) else int(a) ^ int(b)
        if op == "<":
            return _bool(np.less(a, b))
        if op == "<=":
            return _bool(np.less_equal(a, b))
        if op == ">":
            return _bool(np.greater(a, b))
        if op == ">=":
            return _bool(np.greater_equal(a, b))
        if op == "==":
            return _bool(np.equal(a, b))
        if op == "!=":
            return _bool(np.not_equal(a, b))
        if op == "&&":
            return _bool(np.logical_and(a, b))
        if op == "||":
            return _bool(np.logical_or(a, b))
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        return None
    return None


def _bool(x: Any) -> Any:
    return x.astype(np.int64) if isinstance(x, np.ndarray) else int(bool(x))


def _unary(op: str, a: Any) -> Any:
    try:
        if op == "-":
            return -a
        if op == "+":
            return a
        if op == "!":
            return _bool(np.logical_not(a))
        if op == "~":
            return np.invert(a) if isinstance(a, np.ndarray) else ~int(a)
    except (TypeError, ValueError):
        return None
    return None


_CALLS = {
    "min": np.minimum, "max": np.maximum, "umin": np.minimum, "umax": np.maximum,
    "fminf": np.minimum, "fmaxf": np.maximum, "fmin": np.minimum, "fmax": np.maximum,
    "abs": np.abs, "fabsf": np.abs, "fabs": np.abs, "__mul24": np.multiply, "__umul24": np.multiply,
}


class _Unknown(Exception):
    pass


def _zero(b) -> bool:
    return bool(np.logical_or.reduce(b == 0, axis=None)) if isinstance(b, np.ndarray) else b == 0


def _div(a, b):
    if _zero(b):
        raise _Unknown
    if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray) and isinstance(a, int) and isinstance(b, int):
        q = abs(a) // abs(b)
        return -q if (a < 0) != (b < 0) else q
    return _cdiv(a, b)


def _mod(a, b):
    if _zero(b):
        raise _Unknown
    return _cmod(a, b)


def _shift(array_op, left: bool):
    def op(a, b):
        if ndim(a) or ndim(b):
            return array_op(a, b)
        v = shift_scalar(left, a, b)
        if v is None:
            raise _Unknown
        return v
    return op


def _int_op(fn, scalar):
    return lambda a, b: fn(a, b) if ndim(a) or ndim(b) else scalar(int(a), int(b))


# Comparisons give numpy bools on arrays (numpy promotes them in arithmetic, as C does ints).
_OPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": _div, "%": _mod,
    "<<": _shift(np.left_shift, True), ">>": _shift(np.right_shift, False),
    "&": _int_op(np.bitwise_and, lambda a, b: a & b), "|": _int_op(np.bitwise_or, lambda a, b: a | b),
    "^": _int_op(np.bitwise_xor, lambda a, b: a ^ b),
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne,
    "&&": np.logical_and, "||": np.logical_or,
}
_UNARY = ("-", "+", "!", "~")

_EVALUABLE: dict[int, tuple] = {}


def evaluable(e: Expr) -> bool:
    """Whether every node of `e` is one `evaluate` knows (no loads, unknowns, or operators and
    calls without a model), whichever branches a condition takes."""
    t = e[0]
    if t == "c" or t == "s":
        return True
    hit = _EVALUABLE.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    try:
        if t == "b":
            v = e[1] in _OPS and evaluable(e[2]) and evaluable(e[3])
        elif t == "u":
            v = e[1] in _UNARY and evaluable(e[2])
        elif t == "?:":
            v = evaluable(e[1]) and evaluable(e[2]) and evaluable(e[3])
        elif t == "f":
            v = e[1] in _CALLS
            for a in e[2]:
                v = v and evaluable(a)
        else:
            v = False
    except TypeError:   # a malformed node
        v = False
    if len(_EVALUABLE) >= _MEMO_LIMIT:
        _EVALUABLE.clear()
    _EVALUABLE[id(e)] = (e, v)
    return v


def _ev(e: Expr, env: Mapping[str, Any], memo: dict | None) -> Any:
    """The value of an expression; raises _Unknown for an unbound symbol or a node that
    `evaluable` rejects (checked here as the walk reaches it, so a new expression is not walked
    twice; a condition's untaken side is checked with `evaluable`, which asks of every branch).

    memo: values of compound subexpressions for this `env`, by object id (the accesses of a
    kernel share their index arithmetic: `i = blockIdx.x*blockDim.x + threadIdx.x` is computed
    once per environment, not once per access that uses it)."""
    t = e[0]
    if t == "c":
        return e[1]
    if t == "s":
        v = env.get(e[1])
        if v is None:
            raise _Unknown
        return v
    if memo is not None:
        hit = memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
    if t == "b":
        fn = _OPS.get(e[1])
        if fn is None:
            raise _Unknown
        v = fn(_ev(e[2], env, memo), _ev(e[3], env, memo))
    elif t == "?:":
        c = _ev(e[1], env, memo)
        if ndim(c):
            v = np.where(c, _ev(e[2], env, memo), _ev(e[3], env, memo))
        elif c:
            if not evaluable(e[3]):
                raise _Unknown
            v = _ev(e[2], env, memo)
        else:
            if not evaluable(e[2]):
                raise _Unknown
            v = _ev(e[3], env, memo)
    elif t == "u":
        op = e[1]
        if op not in _UNARY:
            raise _Unknown
        a = _ev(e[2], env, memo)
        if op == "-":
            v = -a
        elif op == "+":
            v = a
        elif op == "!":
            v = np.logical_not(a)
        else:
            v = np.invert(a) if isinstance(a, np.ndarray) else ~int(a)
    elif t == "f":
        fn = _CALLS.get(e[1])
        if fn is None:
            raise _Unknown
        args = []
        for x in e[2]:
            args.append(_ev(x, env, memo))
        v = fn(*args)
    else:   # a load, an unknown
        raise _Unknown
    if memo is not None:
        if isinstance(v, np.ndarray):
            v.setflags(write=False)   # shared by every later use: nobody may change it in place
        memo[id(e)] = (e, v)
    return v


def evaluate(e: Expr, env: Mapping[str, Any], memo: dict | None = None) -> Any:
    """Value of `e` with symbols bound by `env` (scalars or numpy arrays), or None (an unbound
    symbol, or a node `evaluable` rejects anywhere in `e`).

    memo: a dict kept with `env` (and only with that env) to share subexpression values
    between calls; the values in it must not be modified."""
    try:
        return _ev(e, env, memo)
    except (_Unknown, TypeError, ValueError, OverflowError, ZeroDivisionError):
        return None


# ---------------------------------------------------------------- polynomial form

Poly = dict  # monomial (sorted tuple of symbol names) -> int coefficient


def to_poly(e: Expr, atom=None) -> Poly | None:
    """Exact polynomial with integer coefficients, or None (division, loads, calls...).

    atom: a function of a subexpression that names it where it is to be one opaque term (a
    part that does not depend on the thread, say), else None."""
    if atom is not None and e[0] != "c":
        name = atom(e)
        if name is not None:
            return {(name,): 1}
    t = e[0]
    if t == "c":
        v = e[1]
        if isinstance(v, (int, np.integer)):
            return {(): int(v)} if v else {}
        return None
    if t == "s":
        return {(e[1],): 1}
    if t == "u" and e[1] == "-":
        p = to_poly(e[2], atom)
        return None if p is None else {m: -c for m, c in p.items()}
    if t == "b":
        op = e[1]
        a = to_poly(e[2], atom)
        if a is None:
            return None
        if op == "<<" and e[3][0] == "c":
            return _scale(a, 1 << int(e[3][1]))
        b = to_poly(e[3], atom)
        if b is None:
            return None
        if op == "+":
            return _add(a, b, 1)
        if op == "-":
            return _add(a, b, -1)
        if op == "*":
            out: Poly = {}
            for ma, ca in a.items():
                for mb, cb in b.items():
                    m = tuple(sorted(ma + mb))
                    out[m] = out.get(m, 0) + ca * cb
            return {m: c for m, c in out.items() if c}
        if op == "/" and list(b) == [()] and b[()] != 0:
            d = b[()]
            if all(c % d == 0 for c in a.values()):
                return {m: c // d for m, c in a.items()}
        return None
    return None


def _add(a: Poly, b: Poly, sign: int) -> Poly:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + sign * c
    return {m: c for m, c in out.items() if c}


def _scale(a: Poly, k: int) -> Poly:
    return {m: c * k for m, c in a.items()}


def poly_str(p: Poly) -> str:
    if not p:
        return "0"
    parts = []
    for m, c in sorted(p.items(), key=lambda mc: (-len(mc[0]), mc[0])):
        name = "*".join(m)
        if not name:
            parts.append(str(c))
        elif c == 1:
            parts.append(name)
        elif c == -1:
            parts.append("-" + name)
        else:
            parts.append(f"{c}*{name}")
    return " + ".join(parts).replace("+ -", "- ")


def to_str(e: Expr) -> str:
    """C-like text of an expression, for messages."""
    t = e[0]
    if t == "c":
        return repr(e[1]) if isinstance(e[1], float) else str(e[1])
    if t == "s":
        return e[1]
    if t == "b":
        return f"({to_str(e[2])} {e[1]} {to_str(e[3])})"
    if t == "u":
        return f"{e[1]}{to_str(e[2])}"
    if t == "?:":
        return f"({to_str(e[1])} ? {to_str(e[2])} : {to_str(e[3])})"
    if t == "f":
        return f"{e[1]}({', '.join(to_str(a) for a in e[2])})"
    if t == "ld":
        return f"{e[1]}[{to_str(e[2])}]"
    return "?"
