"""The `c` task file format: NAME.toml beside NAME.c (the sequential reference) and NAME.cu
(the naive CUDA port), read and checked into a `CTaskSpec`.

Everything a task file says is checked when it is read, at every size it declares: keys,
dtypes, that the argument list matches the C prototype and the kernel's parameters in
order, and that every expression (lengths, scalar values, launch, bytes, flops) evaluates
to a number of the right kind. A bad file raises `TaskFileError("path: what is wrong")`.
The format is documented in docs/c-tasks.md.
"""
from __future__ import annotations

import ast
import math
import operator
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["TaskFileError", "CArg", "CTaskSpec", "read_spec", "evaluate", "c_prototype", "kernel_prototype",
           "DTYPES", "ARG_KINDS"]

# dtype -> the C spellings of its base type (after const/restrict are dropped)
_C_TYPES = {
    "float32": ("float",),
    "float64": ("double",),
    "int32": ("int", "int32_t", "signed int"),
    "int64": ("long long", "long long int", "int64_t", "long", "long int"),
    "uint32": ("unsigned", "unsigned int", "uint32_t"),
}
DTYPES = tuple(_C_TYPES)
ARG_KINDS = ("scalar", "in", "out", "inout", "zero")

_TOP_KEYS = {"function", "description", "kernel", "seed", "args", "sizes", "check", "cost", "launch"}
_ARG_KEYS = {"name", "kind", "dtype", "length", "value", "range", "diagonal", "ld"}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_TASK_NAME = re.compile(r"[a-z0-9][a-z0-9_]*\Z")
_MAX_BLOCK = 1024


class TaskFileError(ValueError):
    """A task file that cannot be used; the message is one line: 'path: what is wrong'."""


# --------------------------------------------------------------------------- expressions
_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_FUNCS = {"cdiv": lambda a, b: -(-a // b), "min": min, "max": max}


def evaluate(expr: str | int | float, env: dict[str, int | float]) -> int | float:
    """An arithmetic expression over `env`'s names: + - * / // % **, parentheses, cdiv/min/max.
    Numbers pass through. Raises ValueError with a short reason."""
    if isinstance(expr, bool):
        raise ValueError(f"{expr!r} is not a number or an expression")
    if isinstance(expr, (int, float)):
        return expr
    if not isinstance(expr, str):
        raise ValueError(f"{expr!r} is not a number or an expression")
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError:
        raise ValueError(f"cannot parse expression {expr!r}") from None

    def ev(node: ast.AST) -> int | float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in env:
                raise ValueError(f"unknown name {node.id!r} in {expr!r} (known: {', '.join(sorted(env)) or 'none'})")
            return env[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            a, b = ev(node.left), ev(node.right)
            try:
                return _BINOPS[type(node.op)](a, b)
            except ZeroDivisionError:
                raise ValueError(f"division by zero in {expr!r}") from None
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = ev(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS
                and not node.keywords):
            try:
                return _FUNCS[node.func.id](*[ev(a) for a in node.args])
            except (TypeError, ZeroDivisionError):
                raise ValueError(f"bad call to {node.func.id} in {expr!r}") from None
        raise ValueError(f"unsupported syntax in {expr!r} (allowed: numbers, names, + - * / // % **, cdiv, min, max)")

    return ev(tree)


def _as_int(value: int | float, what: str) -> int:
    if isinstance(value, float):
        if not (math.isfinite(value) and value.is_integer()):
            raise ValueError(f"{what} is {value}, not a whole number")
        value = int(value)
    return value


def dim3(exprs: tuple[str | int, ...], env: dict[str, int | float], what: str) -> tuple[int, int, int]:
    """1 to 3 launch expressions evaluated in `env`, missing components 1."""
    vals = [_as_int(evaluate(e, env), what) for e in exprs] + [1] * (3 - len(exprs))
    return vals[0], vals[1], vals[2]


# --------------------------------------------------------------------------- prototypes
@dataclass(frozen=True)
class Param:
    name: str
    base: str          # the C base type with qualifiers dropped, e.g. "float", "long long"
    pointer: bool


def _strip_comments(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", " ", src)


_QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "__restrict__"}


def _params(text: str) -> list[Param]:
    text = text.strip()
    if text in ("", "void"):
        return []
    out = []
    for raw in text.split(","):
        if "[" in raw:
            raise ValueError(f"parameter {raw.strip()!r}: write array parameters as pointers")
        pointer = raw.count("*")
        if pointer > 1:
            raise ValueError(f"parameter {raw.strip()!r}: only plain pointers (T*) are supported")
        words = [w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", raw) if w not in _QUALIFIERS]
        if len(words) < 2:
            raise ValueError(f"parameter {raw.strip()!r} needs a type and a name")
        out.append(Param(words[-1], " ".join(words[:-1]), bool(pointer)))
    return out


def c_prototype(source: str, function: str) -> list[Param]:
    """The parameters of `void function(...) {` in a C source."""
    src = _strip_comments(source)
    m = re.search(r"(?:^|[\s;}])void\s+" + re.escape(function) + r"\s*\(([^)]*)\)\s*\{", src)
    if m is None:
        raise ValueError(f"no definition 'void {function}(...) {{' found")
    return _params(m.group(1))


def kernel_prototype(source: str, kernel: str) -> list[Param]:
    """The parameters of `extern "C" __global__ void kernel(...)` in a CUDA source."""
    src = _strip_comments(source)
    m = re.search(r'extern\s+"C"\s+__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+'
                  r'(?:__launch_bounds__\s*\([^)]*\)\s*)?' + re.escape(kernel) + r"\s*\(([^)]*)\)", src)
    if m is None:
        raise ValueError(f'no kernel \'extern "C" __global__ void {kernel}(...)\' found')
    return _params(m.group(1))


def _dtype_of(base: str) -> str | None:
    for dtype, names in _C_TYPES.items():
        if base in names:
            return dtype
    return None


# --------------------------------------------------------------------------- the spec
@dataclass(frozen=True)
class CArg:
    name: str
    kind: str                                   # scalar | in | out | inout | zero
    dtype: str
    length: str | int = ""                      # buffers: element count, an expression
    value: str | int | float = ""               # scalars: an expression (default: the size variable of its name)
    range: tuple[Any, Any] = (-1.0, 1.0)        # in/inout: uniform [lo, hi) (ints: integers in [lo, hi))
    diagonal: tuple[Any, Any] | None = None     # in/inout: element (i, i) of a row-major matrix drawn from here
    ld: str | int = ""                          # with diagonal: the matrix's row length

    @property
    def is_buffer(self) -> bool:
        return self.kind != "scalar"


@dataclass(frozen=True)
class CTaskSpec:
    name: str                                   # the file stem: task ids are c/NAME/SIZE
    path: Path                                  # NAME.toml
    function: str
    description: str
    kernel: str                                 # the naive port's extern "C" kernel in NAME.cu
    args: tuple[CArg, ...]                      # in the C function's parameter order
    sizes: dict[str, dict[str, int | float]] = field(hash=False, compare=False)
    atol: float = 1e-5
    rtol: float = 1e-5
    bytes: str | int = 0
    flops: str | int = 0
    grid: tuple[str | int, ...] = (1,)
    block: tuple[str | int, ...] = (1,)
    smem: str | int = 0
    seed: int = 0
    c_source: str = field(default="", repr=False)
    cu_source: str = field(default="", repr=False)
    toml_text: str = field(default="", repr=False)

    @property
    def c_path(self) -> Path:
        return self.path.with_suffix(".c")

    @property
    def cu_path(self) -> Path:
        return self.path.with_suffix(".cu")

    def env(self, size: str) -> dict[str, int | float]:
        if size not in self.sizes:
            raise KeyError(f"c/{self.name}: no size {size!r} (sizes: {', '.join(self.sizes)})")
        return dict(self.sizes[size])

    def scalar(self, arg: CArg, size: str) -> int | float:
        v = evaluate(arg.value if arg.value != "" else arg.name, self.env(size))
        return _as_int(v, f"scalar {arg.name}") if arg.dtype.startswith(("int", "uint")) else float(v)

    def length(self, arg: CArg, size: str) -> int:
        return _as_int(evaluate(arg.length, self.env(size)), f"length of {arg.name}")

    def bounds(self, pair: tuple[Any, Any], size: str) -> tuple[float, float]:
        env = self.env(size)
        return float(evaluate(pair[0], env)), float(evaluate(pair[1], env))

    def launch(self, size: str) -> tuple[tuple[int, int, int], tuple[int, int, int], int]:
        env = self.env(size)
        return dim3(self.grid, env, "grid"), dim3(self.block, env, "block"), _as_int(evaluate(self.smem, env), "smem")

    def cost(self, size: str) -> tuple[int, int]:
        env = self.env(size)
        return (_as_int(evaluate(self.bytes, env), "bytes"), _as_int(evaluate(self.flops, env), "flops"))


def _need(table: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in table:
        raise ValueError(f"missing key {key!r}{where}")
    v = table[key]
    if not isinstance(v, kind) or isinstance(v, bool):
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise ValueError(f"{key!r}{where} must be a {names}, got {v!r}")
    return v


def _pair(v: Any, what: str) -> tuple[Any, Any]:
    if not (isinstance(v, list) and len(v) == 2 and all(isinstance(x, (int, float, str)) for x in v)):
        raise ValueError(f"{what} must be [lo, hi] (numbers or expressions), got {v!r}")
    return v[0], v[1]


def _parse_arg(i: int, t: Any) -> CArg:
    where = f" in args[{i}]"
    if not isinstance(t, dict):
        raise ValueError(f"args[{i}] must be a table")
    unknown = set(t) - _ARG_KEYS
    if unknown:
        raise ValueError(f"unknown key {sorted(unknown)[0]!r}{where} (allowed: {', '.join(sorted(_ARG_KEYS))})")
    name = _need(t, "name", str, where)
    if not _NAME.match(name):
        raise ValueError(f"args[{i}]: {name!r} is not a C identifier")
    where = f" in argument {name!r}"
    kind = _need(t, "kind", str, where)
    if kind not in ARG_KINDS:
        raise ValueError(f"argument {name!r}: unknown kind {kind!r} (one of {', '.join(ARG_KINDS)})")
    dtype = _need(t, "dtype", str, where)
    if dtype not in DTYPES:
        raise ValueError(f"argument {name!r}: unknown dtype {dtype!r} (one of {', '.join(DTYPES)})")
    if kind == "scalar":
        for k in ("length", "range", "diagonal", "ld"):
            if k in t:
                raise ValueError(f"argument {name!r}: a scalar has no {k!r}")
        value = t.get("value", "")
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise ValueError(f"argument {name!r}: value must be a number or an expression")
        return CArg(name, kind, dtype, value=value)
    if "value" in t:
        raise ValueError(f"argument {name!r}: a buffer has no 'value' (inputs come from 'range')")
    length = _need(t, "length", (str, int), where)
    rng = (-1.0, 1.0)
    diagonal, ld = None, ""
    if kind in ("in", "inout"):
        if "range" in t:
            rng = _pair(t["range"], f"argument {name!r}: range")
        if "diagonal" in t:
            diagonal = _pair(t["diagonal"], f"argument {name!r}: diagonal")
            ld = _need(t, "ld", (str, int), where + " (diagonal needs the matrix row length)")
    else:
        for k in ("range", "diagonal", "ld"):
            if k in t:
                raise ValueError(f"argument {name!r}: an {kind} buffer is not generated, so it has no {k!r}")
    return CArg(name, kind, dtype, length=length, range=rng, diagonal=diagonal, ld=ld)


def _check_params(params: list, args: tuple[CArg, ...], what: str) -> None:
    if len(params) != len(args):
        raise ValueError(f"{what} has {len(params)} parameters, the task lists {len(args)} args")
    for p, a in zip(params, args):
        if p.pointer != a.is_buffer:
            raise ValueError(f"{what} parameter {p.name!r} is {'a pointer' if p.pointer else 'a value'}, "
                             f"args lists {a.name!r} as {a.kind}")
        dtype = _dtype_of(p.base)
        if dtype is None:
            raise ValueError(f"{what} parameter {p.name!r} has type {p.base!r} (supported: "
                             f"{', '.join(n for names in _C_TYPES.values() for n in names[:1])})")
        if dtype != a.dtype:
            raise ValueError(f"{what} parameter {p.name!r} is {p.base} ({dtype}), args lists {a.name!r} as {a.dtype}")


def _parse(path: Path) -> CTaskSpec:
    name = path.stem
    if not _TASK_NAME.match(name):
        raise ValueError("task names (the file stem) are lower-case letters, digits and '_'")
    for p in (path.with_suffix(".c"), path.with_suffix(".cu")):
        if not p.is_file():
            raise ValueError(f"missing {p.name} beside it (a task is NAME.toml + NAME.c + NAME.cu)")
    text = path.read_text()
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"not valid TOML: {exc}") from None
    unknown = set(doc) - _TOP_KEYS
    if unknown:
        raise ValueError(f"unknown key {sorted(unknown)[0]!r} (allowed: {', '.join(sorted(_TOP_KEYS))})")
    function = _need(doc, "function", str, "")
    kernel = _need(doc, "kernel", str, "")
    description = doc.get("description", "")
    seed = doc.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    raw_args = _need(doc, "args", list, "")
    if not raw_args:
        raise ValueError("args is empty")
    args = tuple(_parse_arg(i, t) for i, t in enumerate(raw_args))
    names = [a.name for a in args]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup:
        raise ValueError(f"argument {dup!r} is listed twice")
    if not any(a.kind in ("out", "inout", "zero") for a in args):
        raise ValueError("no output: at least one argument must be an out, inout or zero buffer")

    sizes = _need(doc, "sizes", dict, "")
    if not sizes:
        raise ValueError("sizes is empty: give at least one named size set")
    for sname, sv in sizes.items():
        if not _NAME.match(sname):
            raise ValueError(f"size name {sname!r} must be an identifier")
        if not isinstance(sv, dict) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                               for v in sv.values()):
            raise ValueError(f"sizes.{sname} must be a table of numbers, e.g. {{ n = 1024 }}")
    check = _need(doc, "check", dict, "")
    atol = float(_need(check, "atol", (int, float), " in [check]"))
    rtol = float(_need(check, "rtol", (int, float), " in [check]"))
    if atol < 0 or rtol < 0:
        raise ValueError("check.atol and check.rtol must be >= 0")
    cost = _need(doc, "cost", dict, "")
    launch = _need(doc, "launch", dict, "")
    grid = _need(launch, "grid", list, " in [launch]")
    block = _need(launch, "block", list, " in [launch]")
    for what, dims in (("grid", grid), ("block", block)):
        if not 1 <= len(dims) <= 3:
            raise ValueError(f"launch.{what} must list 1 to 3 dimensions")

    spec = CTaskSpec(
        name=name, path=path, function=function, description=description, kernel=kernel, args=args,
        sizes={k: dict(v) for k, v in sizes.items()}, atol=atol, rtol=rtol,
        bytes=_need(cost, "bytes", (str, int), " in [cost]"), flops=_need(cost, "flops", (str, int), " in [cost]"),
        grid=tuple(grid), block=tuple(block), smem=launch.get("smem", 0), seed=seed,
        c_source=path.with_suffix(".c").read_text(), cu_source=path.with_suffix(".cu").read_text(), toml_text=text,
    )
    _check_params(c_prototype(spec.c_source, function), args, f"{name}.c: {function}")
    _check_params(kernel_prototype(spec.cu_source, kernel), args, f"{name}.cu: kernel {kernel}")
    for sname in spec.sizes:
        _check_size(spec, sname)
    return spec


def _check_size(spec: CTaskSpec, size: str) -> None:
    """Evaluate every expression of the file at one size (errors name the size)."""
    try:
        for a in spec.args:
            if a.kind == "scalar":
                spec.scalar(a, size)
                continue
            if spec.length(a, size) <= 0:
                raise ValueError(f"length of {a.name} is not positive")
            if a.kind in ("in", "inout"):
                lo, hi = spec.bounds(a.range, size)
                if not lo < hi:
                    raise ValueError(f"range of {a.name} is empty ({lo} >= {hi})")
                if a.dtype != "float32" and a.dtype != "float64" and not (lo.is_integer() and hi.is_integer()):
                    raise ValueError(f"range of integer buffer {a.name} must be whole numbers")
                if a.diagonal is not None:
                    spec.bounds(a.diagonal, size)
                    if _as_int(evaluate(a.ld, spec.env(size)), f"ld of {a.name}") <= 0:
                        raise ValueError(f"ld of {a.name} is not positive")
        grid, block, smem = spec.launch(size)
        if min(grid) <= 0 or min(block) <= 0:
            raise ValueError(f"launch is not positive: grid={grid} block={block}")
        if block[0] * block[1] * block[2] > _MAX_BLOCK:
            raise ValueError(f"block {block} has more than {_MAX_BLOCK} threads")
        if grid[1] > 65535 or grid[2] > 65535 or grid[0] >= 2**31:
            raise ValueError(f"grid {grid} exceeds the CUDA limits")
        nbytes, flops = spec.cost(size)
        if nbytes < 0 or flops < 0:
            raise ValueError("cost.bytes and cost.flops must be >= 0")
    except ValueError as exc:
        raise ValueError(f"size {size!r}: {exc}") from None


def read_spec(path: str | Path) -> CTaskSpec:
    """Read and check NAME.toml (with NAME.c and NAME.cu beside it)."""
    path = Path(path)
    try:
        return _parse(path)
    except TaskFileError:
        raise
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        msg = " ".join(str(exc).split())
        raise TaskFileError(f"{path}: {msg}") from None
