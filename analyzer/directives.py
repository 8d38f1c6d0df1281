"""Conditional directives: which branch of an `#if` / `#ifdef` / `#ifndef` / `#elif` a compile takes.

The analysis models what the compiler compiles. A branch whose condition the file decides
(`#if 0`, `#ifdef USE_VEC` after `#define USE_VEC`, `#if TILE == 32`) is the only one analyzed;
a condition on what the file does not say (a name from the build's command line) is undecided,
and the caller keeps its old reading (every branch at file scope, the first in a body).

What a compile defines besides the file is a `Macros`: nvcc's own names (`__CUDACC__`, and in
the device pass `__CUDA_ARCH__`, with its value where the arch is known), `-D` values, and whether
that is all (`closed`: a reward's candidate is compiled as it is, so a name it does not define is
undefined, and 0 in a condition, as the preprocessor takes it; not a name the toolkit's or a
library's headers may define, `CUDART_VERSION`, `__CUDA_BF16_TYPES_EXIST__`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Mapping

# defined in both of nvcc's passes; and in the device pass only (host code sees it undefined)
BOTH_PASSES = frozenset(("__CUDACC__", "__NVCC__"))
DEVICE_PASS = "__CUDA_ARCH__"
# the conditional directives' node types (`#ifdef` and `#ifndef` are both preproc_ifdef)
DIRECTIVES = frozenset(("preproc_if", "preproc_elif", "preproc_ifdef"))


@dataclass(frozen=True)
class Macros:
    """What the compile defines besides the file: `values` (`-DNAME=V`; `__CUDA_ARCH__`'s value
    for the arch analyzed) and whether that is all (`closed`)."""
    values: Mapping[str, int] = field(default_factory=dict)
    closed: bool = False


OPEN = Macros()


# what torch.utils.cpp_extension adds to every nvcc command line (COMMON_NVCC_FLAGS): cuda_fp16.h
# and cuda_bf16.h then leave out __half's operators and the 16-bit floats' conversions
TORCH_DEFINES = ("__CUDA_NO_HALF_OPERATORS__", "__CUDA_NO_HALF_CONVERSIONS__", "__CUDA_NO_BFLOAT16_CONVERSIONS__",
                 "__CUDA_NO_HALF2_OPERATORS__")


def torch_defines(nvcc_flags) -> tuple[str, ...]:
    """The TORCH_DEFINES a PyTorch extension build keeps, given the extra nvcc flags it passes
    (`extra_cuda_cflags`): many projects take them back (`-U__CUDA_NO_HALF_OPERATORS__`)."""
    flags = [str(f) for f in (nvcc_flags or ())]
    undone = set()
    for k, f in enumerate(flags):
        if f in ("-U", "--undefine-macro") and k + 1 < len(flags):
            undone.add(flags[k + 1])
        elif f.startswith("-U"):
            undone.add(f[2:])
        elif f.startswith("--undefine-macro="):
            undone.add(f.split("=", 1)[1])
    return tuple(d for d in TORCH_DEFINES if d not in undone)


def with_defines(macros: Macros, names) -> Macros:
    """`macros` and `-D` of each name (value 1)."""
    if not names:
        return macros
    return Macros({**macros.values, **{n: 1 for n in names}}, macros.closed)


@lru_cache(maxsize=None)
def device_macros(arch: str | None, closed: bool = False) -> Macros:
    """The device pass's `__CUDA_ARCH__` for an arch name (`sm_90` -> 900; None or another name:
    no value). One object per arch (a lint of every file asks)."""
    digits = arch[3:] if arch and arch.startswith("sm_") else ""
    values = {DEVICE_PASS: int(digits) * 10} if digits.isdigit() else {}
    return Macros(values, closed)


# lookup(name) -> (defined: True / False / None for not known, its integer value or None)
Lookup = Callable[[str], "tuple[bool | None, int | None]"]


def lookup_for(defines_before: Callable[[str], bool], constants: Mapping[str, object], macros: Macros,
               device: bool) -> Lookup:
    """A lookup of names in a condition: the file's macros defined before it (`defines_before`,
    their values from `constants`), then the compile's. `device`: the condition is in device code
    (a kernel's or device function's body), where `__CUDA_ARCH__` is defined; at file scope host
    code is compiled too, and a condition on it is undecided."""
    def lookup(name: str) -> tuple[bool | None, int | None]:
        if defines_before(name):
            v = constants.get(name)
            return True, v if type(v) is int else None
        if name == DEVICE_PASS and not device:
            return None, None
        if name in macros.values:
            return True, macros.values[name]
        if name in BOTH_PASSES or name == DEVICE_PASS:
            return True, None
        return (False, 0) if macros.closed and not _library_name(name) else (None, None)
    return lookup


# the toolkit's and libraries' macros, which headers a candidate includes may define (`#if
# CUDART_VERSION >= 12000`, `#ifdef __CUDA_BF16_TYPES_EXIST__`): undecided even in a closed compile
_LIBRARY_PREFIXES = ("CUDA", "CUDART", "CUB", "THRUST", "TORCH", "AT", "C10", "CUTLASS", "CUTE", "NV", "CUDNN",
                     "CUBLAS", "CUSPARSE", "CUFFT", "CURAND", "NCCL", "PYBIND11", "EIGEN")


def _library_name(name: str) -> bool:
    return name.startswith("_") or name.split("_", 1)[0] in _LIBRARY_PREFIXES


def holds(node, text: Callable[[object], str], lookup: Lookup) -> bool | None:
    """Whether the first branch of a conditional directive node is compiled (its alternative
    otherwise), or None where that depends on what `lookup` does not know."""
    if node.type == "preproc_ifdef":
        name = node.child_by_field_name("name")
        if name is None:
            return None
        defined = lookup(text(name))[0]
        if defined is None:
            return None
        return defined if node.children[0].type == "#ifdef" else not defined
    cond = node.child_by_field_name("condition")
    if cond is None or cond.has_error or any(c.type == "ERROR" and c.start_byte < cond.end_byte for c in node.children):
        return None     # `#if A ? B : C` is outside the grammar's directive expressions: misread
    v = _value(cond, text, lookup, 0)
    return None if v is None else v != 0


def _int(literal: str) -> int | None:
    s = literal.rstrip("uUlL").replace("'", "")
    try:
        if len(s) > 1 and s[0] == "0" and s.isdigit():
            return int(s, 8)
        return int(s, 0)
    except ValueError:
        return None     # a float: no #if value


_BINARY = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b), "<=": lambda a, b: int(a <= b),
    ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
}


def _value(node, text, lookup: Lookup, depth: int) -> int | None:
    """The integer value of a condition's expression as the preprocessor computes it, or None."""
    if depth > 100:
        return None
    t = node.type
    if t == "number_literal":
        return _int(text(node))
    if t == "identifier":
        name = text(node)
        if name == "true" or name == "false":    # C++'s preprocessor reads them as 1 and 0
            return int(name == "true")
        return lookup(name)[1]
    if t == "preproc_defined":
        ident = next((c for c in node.named_children if c.type == "identifier"), None)
        defined = lookup(text(ident))[0] if ident is not None else None
        return None if defined is None else int(defined)
    if t == "parenthesized_expression":
        inner = node.named_children
        return _value(inner[0], text, lookup, depth + 1) if len(inner) == 1 else None
    if t == "unary_expression":
        arg, op = node.child_by_field_name("argument"), node.child_by_field_name("operator")
        v = _value(arg, text, lookup, depth + 1) if arg is not None and op is not None else None
        if v is None:
            return None
        return {"!": int(not v), "~": ~v, "-": -v, "+": v}.get(text(op))
    if t == "binary_expression":
        left, right, op = (node.child_by_field_name(f) for f in ("left", "right", "operator"))
        if left is None or right is None or op is None:
            return None
        op = text(op)
        a = _value(left, text, lookup, depth + 1)
        if op == "&&" and a == 0 or op == "||" and a:     # short-circuit: the right side is not read
            return int(op == "||")
        b = _value(right, text, lookup, depth + 1)
        if op == "&&":
            return 0 if b == 0 else None if a is None or b is None else 1
        if op == "||":
            return 1 if b else None if a is None or b is None else 0
        if a is None or b is None:
            return None
        if op in _BINARY:
            return _BINARY[op](a, b)
        if op in ("/", "%"):
            if b == 0:
                return None
            q = abs(a) // abs(b) * (-1 if (a < 0) != (b < 0) else 1)    # C truncates toward zero
            return q if op == "/" else a - b * q
        if op in ("<<", ">>") and 0 <= b < 64:
            return a << b if op == "<<" else a >> b
    return None
