"""What the C++ side of a load_inline candidate launches, given the tensors it is called with.

A load_inline candidate's CUDA string holds kernels and host wrappers
(`torch::Tensor relu_cuda(torch::Tensor x) { ... relu_kernel<<<blocks, threads>>>(...); return y; }`).
Bind a wrapper's parameters to the values a call passes (tensor shapes and dtypes, numbers),
walk its body in order, and evaluate the simple integer arithmetic C++ wrappers do
(`x.numel()`, `x.size(-1)`, `(n + 255) / 256`, `std::min`, `dim3 grid(a, b)`, `?:`), so that
each `<<<grid, block, smem>>>` site gets a concrete launch and its scalar kernel arguments,
and the returned tensor a shape (`torch::empty_like(x)`, `torch::empty({m, n}, opts)`).
Host functions the wrapper calls are followed (a few levels). Anything else stays unknown
and is said so: nothing is guessed.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from analyzer.parse import Function, Program, parse

__all__ = ["TensorInfo", "BoundLaunch", "CallBinding", "CudaUnit", "bind_call", "tensor_info", "DTYPE_BYTES",
           "DTYPE_CTYPE", "python_hazards"]

DTYPE_BYTES = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2, "int64": 8, "int32": 4, "int16": 2,
               "int8": 1, "uint8": 1, "bool": 1}
DTYPE_CTYPE = {"float32": "float", "float64": "double", "float16": "at::Half", "bfloat16": "at::BFloat16",
               "int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t", "uint8": "uint8_t",
               "bool": "bool"}
# option text -> dtype (the last one named wins: x.options().dtype(torch::kLong))
_DTYPE_WORDS = [(re.compile(r"\bk(?:Long|Int64)\b"), "int64"), (re.compile(r"\bk(?:Int|Int32)\b"), "int32"),
                (re.compile(r"\bk(?:Half|Float16)\b"), "float16"), (re.compile(r"\bkBFloat16\b"), "bfloat16"),
                (re.compile(r"\bk(?:Double|Float64)\b"), "float64"), (re.compile(r"\bk(?:Float|Float32)\b"), "float32"),
                (re.compile(r"\bkBool\b"), "bool"), (re.compile(r"\bk(?:Byte|UInt8)\b"), "uint8")]
_INT_TYPES = re.compile(r"\b(int|long|short|unsigned|size_t|int\d+_t|uint\d+_t|ptrdiff_t|index_t|char)\b")
_MAX_DEPTH = 4


@dataclass(frozen=True)
class TensorInfo:
    """A tensor as the static side knows it: shape and dtype (contiguous strides assumed)."""

    shape: tuple[int, ...]
    dtype: str = "float32"

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.numel * DTYPE_BYTES.get(self.dtype, 4)

    def stride(self, dim: int) -> int:
        return math.prod(self.shape[dim + 1:]) if dim >= 0 else math.prod(self.shape[len(self.shape) + dim + 1:])


def tensor_info(t) -> TensorInfo:
    """A torch tensor (any device, meta included) as TensorInfo."""
    return TensorInfo(tuple(int(s) for s in t.shape), str(t.dtype).removeprefix("torch."))


@dataclass(frozen=True)
class Dim3:
    x: int
    y: int = 1
    z: int = 1

    def tuple(self) -> tuple[int, int, int]:
        return (self.x, self.y, self.z)


@dataclass
class BoundLaunch:
    """One kernel launch a call makes, with what could be computed of it."""

    kernel: str                              # name, or name expression (`reduce<256, float>`)
    unit: int                                # which CUDA string
    line: int                                # of the `<<<` site, in the CUDA string (1-based)
    col: int
    host: str                                # the host function holding the site
    grid: tuple[int, int, int] | None = None
    block: tuple[int, int, int] | None = None
    smem: int | None = 0
    args: dict[str, int | float] = field(default_factory=dict)     # the kernel's scalar parameters
    in_loop: bool = False
    unresolved: list[str] = field(default_factory=list)

    @property
    def resolved(self) -> bool:
        return self.grid is not None and self.block is not None


@dataclass
class CallBinding:
    function: str
    found: bool                               # the function is defined in a CUDA string
    result: TensorInfo | None = None          # the returned tensor, when computable
    void: bool = False
    launches: list[BoundLaunch] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class CudaUnit:
    """One CUDA string of the candidate, parsed."""

    index: int
    source: str
    program: Program = field(repr=False)

    @classmethod
    def of(cls, index: int, source: str, path: str = "<cuda_sources>") -> "CudaUnit":
        return cls(index, source, parse(source, path))

    def host_function(self, name: str) -> Function | None:
        return next((f for f in self.program.functions if f.name == name and f.kind == "host"), None)


class _Unknown(Exception):
    """An expression the evaluator cannot compute."""


def _text(program: Program, node) -> str:
    return program.source[node.start_byte:node.end_byte].decode("utf-8", "replace")


_NUM = re.compile(r"^(0[xX][0-9a-fA-F]+|\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)([uUlLfF]*)$")


def _number(text: str) -> int | float:
    m = _NUM.match(text.strip().replace("'", ""))
    if not m:
        raise _Unknown(text)
    body, suffix = m.groups()
    if body.lower().startswith("0x"):
        return int(body, 16)
    if "f" in suffix.lower() or any(c in body for c in ".eE"):
        return float(body)
    return int(body)


def _c_div(a, b):
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            raise _Unknown("division by zero")
        q = abs(a) // abs(b)
        return -q if (a < 0) != (b < 0) else q
    return a / b


_BINOPS = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": _c_div,
    "%": lambda a, b: a - b * int(a / b), "<<": lambda a, b: int(a) << int(b), ">>": lambda a, b: int(a) >> int(b),
    "&": lambda a, b: int(a) & int(b), "|": lambda a, b: int(a) | int(b), "^": lambda a, b: int(a) ^ int(b),
    "<": lambda a, b: int(a < b), "<=": lambda a, b: int(a <= b), ">": lambda a, b: int(a > b),
    ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "&&": lambda a, b: int(bool(a) and bool(b)), "||": lambda a, b: int(bool(a) or bool(b)),
}
_MATH = {"sqrt": math.sqrt, "sqrtf": math.sqrt, "ceil": math.ceil, "ceilf": math.ceil, "floor": math.floor,
         "floorf": math.floor, "rsqrtf": lambda v: 1.0 / math.sqrt(v), "log2": math.log2, "exp": math.exp,
         "expf": math.exp, "fabs": abs, "fabsf": abs, "abs": abs}
_CREATE = {"empty", "zeros", "ones", "full", "rand", "randn", "empty_strided"}
_CREATE_LIKE = {"empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like"}
_SAME_TENSOR = {"contiguous", "clone", "to", "cuda", "detach", "zero_", "fill_", "type", "float", "abs", "relu"}


class _Evaluator:
    """Values of C++ expressions in one host function, over an environment of known names."""

    def __init__(self, unit: CudaUnit, env: dict[str, Any]):
        self.unit = unit
        self.p = unit.program
        self.env = env

    def text(self, node) -> str:
        return _text(self.p, node)

    def name_value(self, name: str):
        if name in self.env:
            v = self.env[name]
            if v is None:
                raise _Unknown(name)
            return v
        if name in self.p.constants:
            return self.p.constants[name]
        if name.isdigit():
            return int(name)
        raise _Unknown(name)

    def value(self, node):
        """The value of an expression node, or _Unknown."""
        t = node.type
        if t == "number_literal":
            return _number(self.text(node))
        if t in ("true", "false"):
            return int(t == "true")
        if t == "identifier":
            return self.name_value(self.text(node))
        if t == "qualified_identifier":
            raise _Unknown(self.text(node))
        if t == "parenthesized_expression":
            inner = [c for c in node.named_children if c.type != "comment"]
            if len(inner) != 1:
                raise _Unknown(self.text(node))
            return self.value(inner[0])
        if t == "binary_expression":
            op = self.text(node.child_by_field_name("operator"))
            if op not in _BINOPS:
                raise _Unknown(op)
            a = self.value(node.child_by_field_name("left"))
            b = self.value(node.child_by_field_name("right"))
            if not all(isinstance(v, (int, float)) for v in (a, b)):
                raise _Unknown(self.text(node))
            try:
                return _BINOPS[op](a, b)
            except (ZeroDivisionError, ValueError, OverflowError):
                raise _Unknown(self.text(node)) from None
        if t == "unary_expression":
            op = self.text(node.child_by_field_name("operator"))
            v = self.value(node.child_by_field_name("argument"))
            if not isinstance(v, (int, float)):
                raise _Unknown(self.text(node))
            return {"-": lambda: -v, "+": lambda: v, "!": lambda: int(not v), "~": lambda: ~int(v)}.get(
                op, lambda: (_ for _ in ()).throw(_Unknown(op)))()
        if t == "conditional_expression":
            cond = self.value(node.child_by_field_name("condition"))
            return self.value(node.child_by_field_name("consequence" if cond else "alternative"))
        if t == "cast_expression":
            v = self.value(node.child_by_field_name("value"))
            return self._cast(self.text(node.child_by_field_name("type")), v)
        if t == "subscript_expression":
            base = self.value(node.child_by_field_name("argument"))
            idx_node = node.child_by_field_name("indices") or node.child_by_field_name("index")
            idx_children = [c for c in idx_node.named_children] if idx_node is not None else []
            if not isinstance(base, tuple) or len(idx_children) != 1:
                raise _Unknown(self.text(node))
            i = self.value(idx_children[0])
            return base[int(i)]
        if t == "call_expression":
            return self._call(node)
        if t == "sizeof_expression":
            inner = node.child_by_field_name("type") or node.child_by_field_name("value")
            size = self.p.type_size(self.text(inner).strip("() ")) if inner is not None else None
            if size is None:
                raise _Unknown(self.text(node))
            return size
        if t == "initializer_list":
            return tuple(self.value(c) for c in node.named_children)
        raise _Unknown(self.text(node))

    def _cast(self, type_text: str, v):
        if not isinstance(v, (int, float)):
            return v
        if _INT_TYPES.search(type_text):
            return int(v)
        if re.search(r"\b(float|double)\b", type_text):
            return float(v)
        return v

    def _args(self, node) -> list:
        args = node.child_by_field_name("arguments")
        return [c for c in args.named_children if c.type != "comment"] if args is not None else []

    def _call(self, node):
        fn = node.child_by_field_name("function")
        args = self._args(node)
        if fn is None:
            raise _Unknown("call")
        if fn.type == "field_expression":           # x.numel(), x.size(0), x.options() ...
            obj = self.value(fn.child_by_field_name("argument"))
            method = self.text(fn.child_by_field_name("field"))
            return self._method(obj, method, args, node)
        name = self.text(fn)
        base = re.sub(r"<.*>$", "", name).split("::")[-1]
        if base in ("static_cast", "int", "int64_t", "size_t", "unsigned", "float", "double") and len(args) == 1:
            targ = name[name.find("<") + 1:-1] if "<" in name else base
            return self._cast(targ, self.value(args[0]))
        if base in ("min", "max") and len(args) == 2:
            a, b = self.value(args[0]), self.value(args[1])
            return min(a, b) if base == "min" else max(a, b)
        if base in ("ceil_div", "div_up", "cdiv", "DIV_UP", "CEIL_DIV", "divUp") and len(args) == 2:
            a, b = self.value(args[0]), self.value(args[1])
            return -(-int(a) // int(b))
        if base == "dim3":
            vals = [int(self.value(a)) for a in args]
            return Dim3(*vals) if 1 <= len(vals) <= 3 else Dim3(1)
        if base in _MATH and len(args) == 1:
            return _MATH[base](self.value(args[0]))
        if base in _CREATE and args:
            shape = self._shape(args[0])
            return TensorInfo(shape, self._dtype(node, default=self._first_tensor_dtype()))
        if base in _CREATE_LIKE and args:
            like = self.value(args[0])
            if not isinstance(like, TensorInfo):
                raise _Unknown(self.text(node))
            return TensorInfo(like.shape, self._dtype(node, default=like.dtype, skip=args[0]))
        raise _Unknown(self.text(node))

    def _method(self, obj, method: str, args, node):
        if isinstance(obj, TensorInfo):
            if method == "numel":
                return obj.numel
            if method in ("dim", "ndimension"):
                return len(obj.shape)
            if method == "element_size":
                return DTYPE_BYTES.get(obj.dtype, 4)
            if method in ("size", "stride") and len(args) == 1:
                d = int(self.value(args[0]))
                if not -len(obj.shape) <= d < len(obj.shape):
                    raise _Unknown(self.text(node))
                return obj.shape[d] if method == "size" else obj.stride(d)
            if method == "sizes" and not args:
                return obj.shape
            if method in ("new_empty", "new_zeros", "new_ones", "new_full") and args:
                return TensorInfo(self._shape(args[0]), self._dtype(node, default=obj.dtype, skip=args[0]))
            if method in ("view", "reshape") and args:
                shape = list(self._shape(args[0]))
                if shape.count(-1) == 1:
                    rest = math.prod(s for s in shape if s != -1)
                    shape[shape.index(-1)] = obj.numel // rest if rest else 0
                return TensorInfo(tuple(shape), obj.dtype)
            if method in _SAME_TENSOR:
                return TensorInfo(obj.shape, self._dtype(node, default=obj.dtype) if method in ("to", "type")
                                  else ("float32" if method == "float" else obj.dtype))
        if isinstance(obj, tuple) and method == "size" and not args:
            return len(obj)
        raise _Unknown(self.text(node))

    def _shape(self, node) -> tuple[int, ...]:
        v = self.value(node)
        if isinstance(v, TensorInfo):
            raise _Unknown(self.text(node))
        if isinstance(v, (int, float)):
            return (int(v),)
        if isinstance(v, tuple) and all(isinstance(x, (int, float)) for x in v):
            return tuple(int(x) for x in v)
        raise _Unknown(self.text(node))

    def _dtype(self, node, default: str, skip=None) -> str:
        text = self.text(node)
        if skip is not None:        # the `like` tensor's own expression says nothing of the dtype
            text = text.replace(self.text(skip), "", 1)
        found = None
        for pattern, dtype in _DTYPE_WORDS:
            for m in pattern.finditer(text):
                if found is None or m.start() > found[0]:
                    found = (m.start(), dtype)
        return found[1] if found else default

    def _first_tensor_dtype(self) -> str:
        return next((v.dtype for v in self.env.values() if isinstance(v, TensorInfo)), "float32")


_LOOPS = {"for_statement", "while_statement", "do_statement", "for_range_loop"}


def _in_loop(node, stop) -> bool:
    n = node.parent
    while n is not None and n != stop:
        if n.type in _LOOPS:
            return True
        n = n.parent
    return False


def _param_env(fn: Function, args: list) -> tuple[dict[str, Any], list[str]]:
    env: dict[str, Any] = {}
    notes: list[str] = []
    if len(args) != len(fn.params):
        notes.append(f"{fn.name} takes {len(fn.params)} parameters, called with {len(args)}")
    for p, a in zip(fn.params, args):
        env[p.name] = a
    return env, notes


def _walk_host(unit: CudaUnit, fn: Function, env: dict[str, Any], units: list[CudaUnit], out: CallBinding,
               depth: int, top: bool) -> Any:
    """Run through a host function's body in order; returns the returned value (top level) or None."""
    ev = _Evaluator(unit, env)
    returned = None
    stack = [fn.body]
    order = []
    while stack:            # pre-order, document order
        n = stack.pop()
        order.append(n)
        stack.extend(reversed(n.children))
    for node in order:
        t = node.type
        if t == "declaration":
            _declare(ev, node)
        elif t == "assignment_expression":
            left = node.child_by_field_name("left")
            op = ev.text(node.child_by_field_name("operator"))
            if left is not None and left.type == "identifier":
                name = ev.text(left)
                try:
                    if op == "=":
                        env[name] = ev.value(node.child_by_field_name("right"))
                    elif op[:-1] in _BINOPS and not _in_loop(node, fn.body):
                        env[name] = _BINOPS[op[:-1]](env[name], ev.value(node.child_by_field_name("right")))
                    else:
                        env[name] = None
                except (_Unknown, KeyError, TypeError):
                    env[name] = None
        elif t == "update_expression":
            arg = node.child_by_field_name("argument")
            if arg is not None and arg.type == "identifier":
                env[ev.text(arg)] = None        # a counter: its value at a later launch is not known here
        elif t == "call_expression":
            if any(c.type == "kernel_call_syntax" for c in node.children):
                out.launches.append(_launch(ev, unit, fn, node))
            else:
                _follow(ev, unit, node, units, out, depth)
        elif t == "return_statement" and top and returned is None:
            vals = [c for c in node.named_children if c.type != "comment"]
            if vals and not _inside(node, "lambda_expression", fn.body):
                try:
                    returned = ev.value(vals[0])
                except _Unknown:
                    returned = _Unknown(ev.text(vals[0]))
    return returned


def _inside(node, kind: str, stop) -> bool:
    n = node.parent
    while n is not None and n != stop:
        if n.type == kind:
            return True
        n = n.parent
    return False


def _declare(ev: _Evaluator, node) -> None:
    tnode = node.child_by_field_name("type")
    type_text = ev.text(tnode) if tnode is not None else ""
    for decl in node.children_by_field_name("declarator"):
        if decl.type == "identifier":               # `int n;`
            ev.env[ev.text(decl)] = None
            continue
        if decl.type == "function_declarator" and "dim3" in type_text:
            # `dim3 block(TILE, TILE)` parses as a function declaration (C++'s most vexing parse)
            name_node = decl.child_by_field_name("declarator")
            params = decl.child_by_field_name("parameters")
            if name_node is None or params is None:
                continue
            try:
                vals = [int(ev.name_value(ev.text(c).strip())) for c in params.named_children]
                ev.env[ev.text(name_node)] = Dim3(*vals) if 1 <= len(vals) <= 3 else None
            except (_Unknown, TypeError, ValueError):
                ev.env[ev.text(name_node)] = None
            continue
        if decl.type != "init_declarator":
            continue
        name_node = decl.child_by_field_name("declarator")
        if name_node is None or name_node.type != "identifier":
            continue
        name = ev.text(name_node)
        value = decl.child_by_field_name("value")
        if value is None:                            # `dim3 grid(a, b)`: the arguments are the last child
            value = next((c for c in reversed(decl.named_children) if c.type in ("argument_list",
                                                                                "initializer_list")), None)
        try:
            if value is None:
                raise _Unknown(name)
            if "dim3" in type_text and value.type in ("argument_list", "initializer_list"):
                vals = [int(ev.value(c)) for c in value.named_children if c.type != "comment"]
                v = Dim3(*vals) if 1 <= len(vals) <= 3 else Dim3(1)
            elif value.type == "initializer_list" and len(value.named_children) == 1:
                v = ev.value(value.named_children[0])          # `int n{x.numel()}`
            elif value.type == "argument_list":
                inner = [c for c in value.named_children if c.type != "comment"]
                v = ev.value(inner[0]) if len(inner) == 1 else None
            else:
                v = ev.value(value)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                v = ev._cast(type_text, v) if _INT_TYPES.search(type_text) or "float" in type_text \
                    or "double" in type_text else v
            ev.env[name] = v
        except (_Unknown, TypeError, ValueError, IndexError):
            ev.env[name] = None


def _follow(ev: _Evaluator, unit: CudaUnit, node, units: list[CudaUnit], out: CallBinding, depth: int) -> None:
    """A call to another host function of the candidate's CUDA: bind and walk it (its launches count)."""
    fn_node = node.child_by_field_name("function")
    if fn_node is None or fn_node.type not in ("identifier", "template_function", "qualified_identifier"):
        return
    name = re.sub(r"<.*>$", "", ev.text(fn_node)).split("::")[-1]
    for u in units:
        callee = u.host_function(name)
        if callee is None:
            continue
        if depth >= _MAX_DEPTH:
            out.notes.append(f"{name}: host calls nested deeper than {_MAX_DEPTH}; not followed")
            return
        args = []
        for a in ev._args(node):
            try:
                args.append(ev.value(a))
            except _Unknown:
                args.append(None)
        env, notes = _param_env(callee, args)
        out.notes.extend(notes)
        _walk_host(u, callee, env, units, out, depth + 1, top=False)
        return


def _launch(ev: _Evaluator, unit: CudaUnit, fn: Function, node) -> BoundLaunch:
    syntax = next(c for c in node.children if c.type == "kernel_call_syntax")
    parts = [c for c in syntax.named_children if c.type != "comment"]
    fnode = node.child_by_field_name("function")
    targs: list[str] = []
    if fnode is not None and fnode.type == "template_function":
        name = ev.text(fnode.child_by_field_name("name")).split("::")[-1]
        al = fnode.child_by_field_name("arguments")
        targs = [ev.text(a) for a in al.named_children] if al is not None else []
    else:
        name = ev.text(fnode).split("::")[-1] if fnode is not None else "?"
    # `scalar_t` of AT_DISPATCH_* is the dtype of the tensors the wrapper got
    dtype = ev._first_tensor_dtype()
    targs = [DTYPE_CTYPE.get(dtype, "float") if a == "scalar_t" else a for a in targs]
    kernel = f"{name}<{', '.join(targs)}>" if targs else name
    bl = BoundLaunch(kernel, unit.index, node.start_point[0] + 1, node.start_point[1] + 1, fn.name,
                     in_loop=_in_loop(node, fn.body))

    def dims(i: int, what: str):
        if i >= len(parts):
            return None
        try:
            v = ev.value(parts[i])
        except _Unknown as exc:
            bl.unresolved.append(f"{what} `{ev.text(parts[i])}`: {exc} unknown")
            return None
        if isinstance(v, Dim3):
            return v.tuple()
        if isinstance(v, (int, float)):
            return (int(v), 1, 1)
        bl.unresolved.append(f"{what} `{ev.text(parts[i])}` is not a number or dim3")
        return None

    bl.grid = dims(0, "grid")
    bl.block = dims(1, "block")
    if len(parts) > 2:
        try:
            bl.smem = int(ev.value(parts[2]))
        except (_Unknown, TypeError, ValueError):
            bl.smem = None
            bl.unresolved.append(f"dynamic shared memory `{ev.text(parts[2])}` unknown")
    kernel_fn = next((f for u in [unit] for f in u.program.kernels if f.name == name), None)
    if kernel_fn is not None:
        for p, a in zip(kernel_fn.params, ev._args(node)):
            if p.pointer:
                continue
            try:
                v = ev.value(a)
            except _Unknown:
                continue
            if isinstance(v, (int, float)):
                bl.args[p.name] = v
    else:
        bl.unresolved.append(f"kernel {name} is not defined in this CUDA string")
    return bl


def bind_call(units: list[CudaUnit], function: str, args: list) -> CallBinding:
    """What calling the extension function `function` with `args` (TensorInfo, numbers, tuples,
    None for anything else) launches and returns."""
    for u in units:
        fn = u.host_function(function)
        if fn is None:
            continue
        out = CallBinding(function, True)
        env, notes = _param_env(fn, list(args))
        out.notes.extend(notes)
        ret_type = _return_type(u, fn)
        returned = _walk_host(u, fn, env, units, out, 0, top=True)
        if ret_type == "void":
            out.void = True
        elif isinstance(returned, TensorInfo):
            out.result = returned
        elif isinstance(returned, _Unknown):
            out.notes.append(f"{function}: the shape of the returned `{returned}` is not computable")
        return out
    return CallBinding(function, False, notes=[f"{function}: not defined in the candidate's cuda_sources"])


def _return_type(unit: CudaUnit, fn: Function) -> str:
    node = fn.node.child_by_field_name("type")
    return _text(unit.program, node).strip() if node is not None else ""


# ------------------------------------------------------------------ the candidate's Python, read

# Dotted names (imports resolved) that time, reorder or hide work: a kernel launched on a stream
# of its own is not inside the evaluator's events on the current stream; an event or clock of
# the candidate's own has no business in a forward.
_PY_TIMING = re.compile(r"^(?:torch\.(?:cuda\.)?(?:Stream|stream|set_stream|ExternalStream|Event|StreamContext|graph|"
                        r"CUDAGraph|make_graphed_callables)|torch\.accelerator\.set_stream|"
                        r"time\.(?:time|time_ns|perf_counter|perf_counter_ns|monotonic|monotonic_ns|process_time|"
                        r"thread_time|sleep))$|(?:^|\.)elapsed_time$")
# Ways to reach objects that are not the candidate's own: the reference's module, the harness.
_PY_REACH = re.compile(r"^(?:sys\.modules|gc\.get_objects|gc\.get_referrers|builtins\.\w+|importlib\.reload)$")


def _dotted(node) -> str | None:
    import ast

    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def python_hazards(text: str) -> tuple[list[str], list[str]]:
    """(patches, timing) found in a candidate's Python source.

    patches: assignments, deletions and setattr/delattr on anything reached through an
    imported module (`torch.cuda.Event.elapsed_time = ...`, `F.relu = ...`,
    `setattr(time, "perf_counter", f)`), and uses of sys.modules / gc that find the reference;
    timing: streams, events, graphs and clocks the candidate uses itself. Names are resolved
    through the file's imports (`import time as t` makes `t.perf_counter` time.perf_counter)."""
    import ast

    try:
        tree = ast.parse(text)
    except SyntaxError:
        return [], []
    alias: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                alias[(a.asname or a.name).split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                alias[a.asname or a.name] = f"{node.module}.{a.name}"

    def resolve(node) -> str | None:
        name = _dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if head not in alias:
            return None            # the candidate's own names (self, locals) are its business
        return alias[head] + ("." + rest if rest else "")

    patches: set[str] = set()
    timing: set[str] = set()
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, (ast.Assign, ast.Delete)):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for t in targets:
            for sub in ast.walk(t):
                if isinstance(sub, (ast.Attribute, ast.Subscript)):
                    base = sub.value if isinstance(sub, ast.Subscript) else sub
                    full = resolve(base)
                    if full is not None:
                        patches.add(full)
                    break
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr") \
                and node.args:
            full = resolve(node.args[0])
            if full is not None:
                attr = node.args[1].value if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) else "?"
                patches.add(f"{full}.{attr}")
        if isinstance(node, ast.Attribute) or (isinstance(node, ast.Name) and node.id in alias):
            full = resolve(node)
            if full is None:
                continue
            if _PY_TIMING.search(full):
                timing.add(full)
            elif _PY_REACH.match(full):
                patches.add(full)
    # a name counted at every prefix (torch.cuda.Event and torch.cuda.Event.elapsed_time): keep the longest
    timing = {n for n in timing if not any(o != n and o.startswith(n + ".") for o in timing)}
    return sorted(patches), sorted(timing)
