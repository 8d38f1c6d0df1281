"""A model's reply -> a launchable candidate for a task, and the prompt that asks for one.

A reply holds one CUDA code block (```cuda, ```cu, ```cpp, ```c++ or ```c; the last one wins;
a reply without fences that contains `__global__` is taken whole). Inside the code, one comment
line states how to launch it:

    // launch: kernel=NAME grid=(EXPR, EXPR, EXPR) block=(X, Y, Z) smem=EXPR

- `grid` and `block` take 1 to 3 components (missing ones are 1); `dim3(...)` is accepted too.
- `kernel` is optional: by default the one `extern "C" __global__` kernel of the code (or, when
  there is none, the one explicitly instantiated template kernel). A template kernel is named by
  its instantiation, e.g. `kernel=reduce<256>`.
- `smem` (dynamic shared memory, bytes) is optional, default 0.
- An EXPR is integer arithmetic over the task's integer scalar arguments (`n`, `rows`, `cols`,
  ...): integer literals, `+ - * / // % << >>`, parentheses, `cdiv(a, b)` (= `ceil_div`), `min`,
  `max`. `/` divides as C does (truncates); `//` floors, but only inside parentheses: outside them
  it starts a trailing comment. Read by a small `ast` walker, never `eval`.

Example, for a task with scalars `rows` and `cols`:

    ```cuda
    // launch: grid=(cdiv(cols, 32), cdiv(rows, 8)) block=(32, 8)
    extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) { ... }
    ```

The kernel is called with the baseline's arguments, in order (`task_prompt` spells them out).
The launch line is removed from the stored source and the code's surrounding blank lines are
trimmed, so the same kernel code with the same launch always gives the same `sample_id`
wherever the line sits (a corpus variant resubmitted this way is the corpus sample itself, which
a replay oracle can answer).

    parse_submission(task, text) -> Sample      # raises SubmissionError (one line) on bad input
    extract_code(text) -> str
    parse_launch(line, scalars) -> Launch
    task_prompt(task) -> str
"""
from __future__ import annotations

import ast
import dataclasses
import re
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from analyzer.fences import blocks as fenced_blocks
from analyzer.models import ARCHS, DEFAULT_ARCH
from corpus.families.base import Buffer, Sample, Scalar, cdiv

from .tasks import Task

__all__ = ["SubmissionError", "Launch", "KernelDecl", "extract_code", "split_launch", "parse_launch",
           "kernels", "resolve_kernel", "parse_submission", "launch_line", "reply_format", "task_prompt"]


class SubmissionError(ValueError):
    """A reply that cannot become a candidate; the message is one line, meant for the model too."""


# ------------------------------------------------------------------ code blocks

_CODE_LANGS = {"cuda", "cu", "cpp", "c++", "cxx", "c"}
_THINK = re.compile(r"<think>.*?(</think>|\Z)", re.S | re.I)


def extract_code(text: str) -> str:
    """The CUDA code of a reply: the last ```cuda/```cu/```cpp/```c++/```c block, else the last
    unlabelled block that holds a `__global__`, else the whole reply if it has no fences and holds
    a `__global__`. Reasoning inside <think>...</think> is skipped."""
    text = _THINK.sub("", text.replace("\r\n", "\n"))
    blocks = fenced_blocks(text)
    code = [b for b in blocks if b.lang in _CODE_LANGS]
    if not code:
        code = [b for b in blocks if not b.lang and "__global__" in b.text]
    if code:
        last = code[-1]
        if not last.closed:
            raise SubmissionError(f"the last ```{last.lang or ''} block is never closed (was the reply cut off?)")
        return last.text
    if not blocks and "__global__" in text:
        return text
    raise SubmissionError("no CUDA code block in the reply")


# ------------------------------------------------------------------ the launch line

_LAUNCH = re.compile(r"^[ \t]*//[ \t]*launch[ \t]*:(.*)$", re.I | re.M)


def split_launch(code: str) -> tuple[str, str]:
    """(the launch spec after `// launch:`, the code without that line, blank lines around it trimmed)."""
    code = code.replace("\r\n", "\n")
    found = list(_LAUNCH.finditer(code))
    if not found:
        raise SubmissionError("no `// launch:` line in the code: add one, e.g. "
                              "`// launch: grid=(cdiv(n, 256)) block=(256)`")
    if len(found) > 1:
        raise SubmissionError(f"{len(found)} `// launch:` lines in the code; give exactly one")
    m = found[0]
    rest = code[:m.start()] + code[m.end() + 1:]     # the line and its newline
    return m.group(1).strip(), _canonical(rest)


def _canonical(code: str) -> str:
    """Leading blank lines and trailing whitespace off, one final newline (as corpus sources are)."""
    code = re.sub(r"\A(?:[ \t]*\n)+", "", code).rstrip()
    return code + "\n" if code else ""


@dataclass(frozen=True)
class Launch:
    """What a launch line states. `kernel` is None when the line does not name one."""

    kernel: str | None
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    smem: int = 0


_KEY = re.compile(r"(?<![\w.])([A-Za-z_]\w*)[ \t]*=(?!=)")
_KEYS = ("kernel", "grid", "block", "smem")
_KERNEL_NAME = re.compile(r"^[A-Za-z_]\w*(?:<[^<>]+>)?$")
_MAX_EXPR = 300
ARCH = ARCHS[DEFAULT_ARCH]          # the GPU the corpus was measured on: its per-block limits


def _depths(s: str) -> list[int]:
    """Parenthesis depth at each character (of () and [])."""
    out, d = [], 0
    for ch in s:
        if ch in ")]":
            d -= 1
        out.append(d)
        if ch in "([":
            d += 1
    return out


def _items(spec: str) -> dict[str, str]:
    depth = _depths(spec)
    # `//` outside parentheses starts a trailing comment; inside them it is floor division
    cut = next((i for i in range(len(spec) - 1) if spec[i:i + 2] == "//" and depth[i] == 0), len(spec))
    spec = spec[:cut].rstrip()
    depth = depth[:len(spec)]
    keys = [m for m in _KEY.finditer(spec) if depth[m.start()] == 0]
    if not keys:
        raise SubmissionError(f"cannot read the launch line {spec!r}: expected "
                              "`grid=(...) block=(...)` (and optionally kernel=NAME smem=BYTES)")
    lead = spec[:keys[0].start()].strip(" ,")
    if lead:
        raise SubmissionError(f"cannot read {lead!r} in the launch line: give key=value items "
                              "(kernel=, grid=, block=, smem=)")
    out: dict[str, str] = {}
    for m, nxt in zip(keys, keys[1:] + [None]):
        key = m.group(1).lower()
        if key not in _KEYS:
            raise SubmissionError(f"unknown launch key {m.group(1)!r}: use kernel=, grid=, block=, smem=")
        if key in out:
            raise SubmissionError(f"{key}= is given twice in the launch line")
        value = spec[m.end(): nxt.start() if nxt else len(spec)].strip().rstrip(",").strip()
        if not value:
            raise SubmissionError(f"{key}= has no value in the launch line")
        out[key] = value
    for key in ("grid", "block"):
        if key not in out:
            raise SubmissionError(f"the launch line has no {key}=(...)")
    return out


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_BINOPS: dict[type, Callable[[int, int], int]] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b, ast.Div: _c_div, ast.Mod: lambda a, b: a % b,
    ast.LShift: lambda a, b: a << b, ast.RShift: lambda a, b: a >> b,
}
_FUNCS: dict[str, Callable[..., int]] = {"cdiv": cdiv, "ceil_div": cdiv, "min": min, "max": max}
_LIMIT = 1 << 62                    # far past any launch dimension; stops runaway products


class _Eval:
    """Integer arithmetic over named integers, one `ast` node kind at a time."""

    def __init__(self, names: Mapping[str, int], floats: Mapping[str, str], what: str) -> None:
        self.names, self.floats, self.what = names, floats, what

    def fail(self, msg: str) -> SubmissionError:
        return SubmissionError(f"{self.what}: {msg}")

    def __call__(self, node: ast.AST) -> int:
        v = self.node(node)
        if abs(v) > _LIMIT:
            raise self.fail("value too large")
        return v

    def node(self, node: ast.AST) -> int:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, int):
                raise self.fail(f"only integer literals are allowed, not {node.value!r}")
            return node.value
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return int(self.names[node.id])
            if node.id in self.floats:
                raise self.fail(f"{node.id} is a {self.floats[node.id]} scalar; launch expressions use "
                                f"the integer ones ({', '.join(self.names) or 'none here'})")
            raise self.fail(f"unknown name {node.id!r} (known: {', '.join(self.names) or 'none'})")
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = self(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            a, b = self(node.left), self(node.right)
            if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and b == 0:
                raise self.fail("division by zero")
            if isinstance(node.op, (ast.LShift, ast.RShift)) and not 0 <= b < 63:
                raise self.fail(f"shift by {b}")
            return _BINOPS[type(node.op)](a, b)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCS:
            name = node.func.id
            if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
                raise self.fail(f"{name}() takes plain positional arguments")
            args = [self(a) for a in node.args]
            if name in ("cdiv", "ceil_div"):
                if len(args) != 2:
                    raise self.fail(f"{name}() takes 2 arguments, got {len(args)}")
                if args[1] == 0:
                    raise self.fail("division by zero")
            elif not args:
                raise self.fail(f"{name}() needs at least one argument")
            return _FUNCS[name](*args)
        if isinstance(node, ast.Call):
            fn = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
            raise self.fail(f"unknown function {fn}() (use cdiv, ceil_div, min, max)")
        raise self.fail(f"{ast.unparse(node)!r} is not integer arithmetic "
                        "(use + - * / // % << >>, parentheses, cdiv, min, max)")


def _parse_expr(text: str, what: str) -> ast.expr:
    if len(text) > _MAX_EXPR:
        raise SubmissionError(f"{what}: expression longer than {_MAX_EXPR} characters")
    try:
        return ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise SubmissionError(f"{what}: cannot read {text.strip()!r} as an integer expression") from None


def _dims(text: str, key: str, ev: Callable[[ast.AST, str], int]) -> tuple[int, int, int]:
    node = _parse_expr(text, f"{key}=")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dim3":
        parts = list(node.args)
    elif isinstance(node, ast.Tuple):
        parts = list(node.elts)
    else:
        parts = [node]
    if not 1 <= len(parts) <= 3:
        raise SubmissionError(f"{key}= has {len(parts)} components; give 1 to 3")
    xyz = "xyz"
    vals = [ev(p, f"{key} {xyz[i]}") for i, p in enumerate(parts)]
    return tuple(vals + [1] * (3 - len(vals)))  # type: ignore[return-value]


def _check(grid: tuple[int, int, int], block: tuple[int, int, int], smem: int) -> None:
    for key, dims in (("grid", grid), ("block", block)):
        for axis, v in zip("xyz", dims):
            if v < 1:
                raise SubmissionError(f"{key} {axis} = {v}: every {key} dimension must be at least 1")
    for axis, v, top in zip("xyz", block, (1024, 1024, 64)):
        if v > top:
            raise SubmissionError(f"block {axis} = {v} is over the limit of {top}")
    threads = block[0] * block[1] * block[2]
    if threads > 1024:
        raise SubmissionError(f"block={block} has {threads} threads; at most 1024 per block")
    for axis, v, top in zip("xyz", grid, ((1 << 31) - 1, 65535, 65535)):
        if v > top:
            raise SubmissionError(f"grid {axis} = {v} is over the limit of {top}")
    if smem < 0:
        raise SubmissionError(f"smem={smem}: dynamic shared memory cannot be negative")
    if smem > ARCH.max_smem_per_block:
        raise SubmissionError(f"smem={smem} bytes is over the {ARCH.max_smem_per_block}-byte limit of one block "
                              f"({ARCH.name})")


def _normalize_kernel(name: str) -> str:
    return re.sub(r"\s*([<>,])\s*", r"\1", name.strip())


def parse_launch(spec: str, scalars: Mapping[str, int | float], dtypes: Mapping[str, str] | None = None) -> Launch:
    """Read a launch spec (the text after `// launch:`, or the whole line). `scalars`: the task's
    scalar arguments by name; only integer ones may appear in expressions (`dtypes` names the
    type of the others for the error message)."""
    m = _LAUNCH.match(spec)
    if m:
        spec = m.group(1)
    ints = {k: int(v) for k, v in scalars.items() if isinstance(v, int) and not isinstance(v, bool)}
    floats = {k: (dtypes or {}).get(k, "floating-point") for k in scalars if k not in ints}
    items = _items(spec)

    def ev(node: ast.AST, what: str) -> int:
        return _Eval(ints, floats, what)(node)

    kernel = None
    if "kernel" in items:
        kernel = _normalize_kernel(items["kernel"])
        if not _KERNEL_NAME.match(kernel):
            raise SubmissionError(f"kernel={items['kernel']!r} is not a kernel name (NAME or NAME<ARGS>)")
    grid = _dims(items["grid"], "grid", ev)
    block = _dims(items["block"], "block", ev)
    smem = ev(_parse_expr(items["smem"], "smem="), "smem") if "smem" in items else 0
    _check(grid, block, smem)
    return Launch(kernel, grid, block, smem)


# ------------------------------------------------------------------ kernels in the code

@dataclass(frozen=True)
class KernelDecl:
    """A `__global__` function as the code declares it."""

    name: str
    extern_c: bool
    template: bool
    params: int | None          # parameter count, None when the list could not be read
    line: int


_COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)
_PREPROC = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)
_EXTERN_C_BLOCK = re.compile(r'\bextern\s*"C"\s*\{')
_SKIP_ATTRS = {"__launch_bounds__", "__attribute__", "__maxnreg__", "__cluster_dims__", "__declspec", "alignas"}
_CALLABLE = re.compile(r"([A-Za-z_]\w*)\s*(<[^;{}()]*>)?\s*\(")


def _blank(m: re.Match) -> str:
    s = m.group(0)
    if s == '"C"':
        return s
    return "".join(c if c == "\n" else " " for c in s)


def _close(text: str, open_at: int, o: str, c: str) -> int:
    """Index of the bracket matching text[open_at] (len(text) when unbalanced)."""
    d = 0
    for i in range(open_at, len(text)):
        if text[i] == o:
            d += 1
        elif text[i] == c:
            d -= 1
            if d == 0:
                return i
    return len(text)


def _count_params(plist: str) -> int:
    plist = plist.strip()
    if not plist or plist == "void":
        return 0
    n, d = 1, 0
    for ch in plist:
        if ch in "(<[":
            d += 1
        elif ch in ")>]":
            d -= 1
        elif ch == "," and d == 0:
            n += 1
    return n


def _scan(code: str) -> tuple[list[KernelDecl], list[str]]:
    """The `__global__` functions of the code and its explicit template instantiations
    (`template __global__ void k<256>(...);` -> "k<256>"). Comments, strings and preprocessor
    lines are blanked first so that they cannot hide or fake a kernel."""
    text = _COMMENT_OR_STRING.sub(_blank, code)
    text = _PREPROC.sub(_blank, text)
    c_blocks = [(m.end(), _close(text, m.end() - 1, "{", "}")) for m in _EXTERN_C_BLOCK.finditer(text)]
    decls: dict[str, KernelDecl] = {}
    inst: list[str] = []
    for g in re.finditer(r"\b__global__\b", text):
        start = max(text.rfind(ch, 0, g.start()) for ch in ";{}") + 1
        prefix = text[start:g.start()]
        pos = g.end()
        while True:
            m = _CALLABLE.search(text, pos)
            if m is None:
                break
            if m.group(1) in _SKIP_ATTRS:
                pos = _close(text, m.end() - 1, "(", ")") + 1
                continue
            break
        if m is None:
            continue
        name, targs = m.group(1), m.group(2)
        pend = _close(text, m.end() - 1, "(", ")")
        params = _count_params(text[m.end():pend]) if pend < len(text) else None
        if re.search(r"\btemplate\s*<", prefix):
            templ = True
        elif re.search(r"\btemplate\b", prefix):
            if targs and not re.search(r"\bextern\b", prefix):
                inst.append(_normalize_kernel(name + targs))
            continue
        else:
            templ = False
        extern_c = bool(re.search(r'\bextern\s*"C"', prefix)) or any(a <= g.start() < b for a, b in c_blocks)
        line = text.count("\n", 0, g.start()) + 1
        old = decls.get(name)
        if old is None:
            decls[name] = KernelDecl(name, extern_c, templ, params, line)
        elif old.params is None and params is not None:
            decls[name] = dataclasses.replace(old, params=params)
    return list(decls.values()), list(dict.fromkeys(inst))


def kernels(code: str) -> list[KernelDecl]:
    """The `__global__` functions the code declares or defines, in order."""
    return _scan(code)[0]


_NOT_EXTERN_C = ('kernel {name} is not extern "C": declare it `extern "C" __global__` '
                 "(the kernel is looked up by its C name)")


def resolve_kernel(code: str, named: str | None) -> str:
    """The kernel name (or template name expression) to launch: `named` checked against the code,
    or the code's one extern "C" kernel (else its one explicit template instantiation)."""
    decls, inst = _scan(code)
    by_name = {k.name: k for k in decls}
    if not decls:
        raise SubmissionError("no __global__ kernel in the code")
    if named is not None:
        base = named.split("<")[0]
        k = by_name.get(base)
        if k is None:
            raise SubmissionError(f"kernel={named}: the code has no __global__ {base} "
                                  f"(it has {', '.join(by_name)})")
        if "<" in named:
            if not k.template:
                raise SubmissionError(f"kernel={named}: {base} is not a template kernel; write kernel={base}")
            return named
        if k.template:
            eg = next((i for i in inst if i.split("<")[0] == base), f"{base}<256>")
            raise SubmissionError(f"kernel {base} is a template: name an instantiation, e.g. kernel={eg}")
        if not k.extern_c:
            raise SubmissionError(_NOT_EXTERN_C.format(name=base))
        return base
    ext = [k.name for k in decls if k.extern_c and not k.template]
    if len(ext) == 1:
        return ext[0]
    if len(ext) > 1:
        raise SubmissionError(f"several extern \"C\" kernels ({', '.join(ext)}): "
                              "name the one to launch with kernel=NAME in the launch line")
    if len(inst) == 1:
        return inst[0]
    if len(inst) > 1:
        raise SubmissionError(f"several template instantiations ({', '.join(inst)}): "
                              "name the one to launch with kernel=NAME<ARGS> in the launch line")
    plain = [k.name for k in decls if not k.template]
    if plain:
        raise SubmissionError(_NOT_EXTERN_C.format(name=plain[0]))
    k = decls[0]
    raise SubmissionError(f"kernel {k.name} is a template: name an instantiation, e.g. kernel={k.name}<256>")


# ------------------------------------------------------------------ submissions

def _scalars(sample: Sample) -> tuple[dict[str, int | float], dict[str, str]]:
    vals: dict[str, int | float] = {}
    dtypes: dict[str, str] = {}
    for a in sample.args:
        if isinstance(a, Scalar):
            is_int = "int" in a.dtype
            vals[a.name] = int(a.value) if is_int else float(a.value)
            dtypes[a.name] = a.dtype
    return vals, dtypes


def _launchable(task: Task) -> Sample:
    """The task's baseline launch; tasks without one (torch tasks) take another reply format."""
    if not isinstance(getattr(task, "baseline", None), Sample):
        raise SubmissionError(f"task {task.id} ({task.kind}) has no baseline kernel launch: its replies are not "
                              "a CUDA kernel with a // launch: line")
    return task.baseline


def parse_submission(task: Task, text: str) -> Sample:
    """A reply -> the candidate Sample: the code (launch line removed), the kernel and launch it
    states, and the baseline's arguments, problem and tolerances. SubmissionError otherwise."""
    _launchable(task)
    code = extract_code(text)
    spec, source = split_launch(code)
    vals, dtypes = _scalars(task.baseline)
    launch = parse_launch(spec, vals, dtypes)
    kernel = resolve_kernel(source, launch.kernel)
    decl = next((k for k in kernels(source) if k.name == kernel.split("<")[0]), None)
    want = len(task.baseline.args)
    if decl is not None and decl.params is not None and decl.params != want:
        raise SubmissionError(f"kernel {decl.name} takes {decl.params} parameters; it is called with {want}: "
                              f"({', '.join(_c_param(a) for a in task.baseline.args)})")
    return dataclasses.replace(task.baseline, source=source, kernel=kernel, grid=launch.grid, block=launch.block,
                               smem=launch.smem, variant="submitted", baseline=False, params={})


# ------------------------------------------------------------------ the prompt

_C_TYPES = {"float32": "float", "float64": "double", "float16": "__half", "bfloat16": "__nv_bfloat16",
            "int32": "int", "uint32": "unsigned int", "int64": "long long", "uint8": "unsigned char",
            "int8": "signed char"}
_ROLES = {
    "in": "input, read only",
    "out": "output: every element is checked; it holds garbage before the launch",
    "inout": "input and output: read it, overwrite it; every element is checked",
    "zero": "output, zeroed before the launch (accumulate into it, e.g. with atomicAdd); checked",
    "scratch": "scratch device memory, not checked",
}


def _c_param(a: Buffer | Scalar) -> str:
    t = _C_TYPES.get(a.dtype, a.dtype)
    if isinstance(a, Buffer):
        return f"{'const ' if a.role == 'in' else ''}{t}* {a.name}"
    return f"{t} {a.name}"


def launch_line(sample: Sample) -> str:
    """The `// launch:` line that reproduces a sample's launch."""
    g, b = sample.grid, sample.block
    line = f"// launch: kernel={sample.kernel} grid=({g[0]}, {g[1]}, {g[2]}) block=({b[0]}, {b[1]}, {b[2]})"
    return line + (f" smem={sample.smem}" if sample.smem else "")


_REPLY_FORMAT = "\n".join((
    "Reply with exactly one ```cuda code block holding the whole kernel source, with one launch line inside it:",
    "  // launch: kernel=NAME grid=(EXPR, EXPR, EXPR) block=(X, Y, Z) smem=BYTES",
    "- grid and block take 1 to 3 components (missing ones are 1); smem is the dynamic shared memory in bytes "
    "(default 0).",
    '- kernel may be left out when the code has one extern "C" __global__ kernel; a template kernel is named by '
    "its instantiation (kernel=name<256>).",
    "- EXPR: integer arithmetic over the integer scalar arguments{names}: literals, + - * / % << >>, parentheses, "
    "cdiv(a, b) (ceiling division), min, max.",
    "- Device code only (compiled by NVRTC for {arch}: no host code, no main, no host or libc headers). "
    'The kernel must be extern "C" __global__ (or an instantiated template).',
))


def reply_format(int_names: Sequence[str] = ()) -> str:
    """How a reply must look (the launch line's grammar), naming the scalars expressions may use."""
    return _REPLY_FORMAT.format(names=f" ({', '.join(int_names)})" if int_names else "", arch=ARCH.name)


def task_prompt(task: Task) -> str:
    """What a model needs to write a candidate: the task, the size, the exact parameter list, the
    tolerance, the baseline with its launch line, and the reply format."""
    b = _launchable(task)
    vals, _ = _scalars(b)
    ints = [k for k, v in vals.items() if isinstance(v, int)]
    lines = [f"Task {task.id}: {task.description or task.family}".rstrip(),
             f"Write a CUDA kernel that computes the same result as the baseline below, faster, on an NVIDIA H200 "
             f"({ARCH.name}). Speed is measured on the GPU or predicted by a cost model; a wrong result earns nothing.",
             "",
             "Problem size: " + (", ".join(f"{k} = {v}" for k, v in vals.items()) or b.size),
             "Your kernel is called with exactly these arguments, in this order:"]
    width = max(len(_c_param(a)) for a in b.args) if b.args else 0
    bound = (task.meta or {}).get("bindings", {})
    for a in b.args:
        if isinstance(a, Buffer):
            why = f"{a.size} x {a.dtype}; {_ROLES.get(a.role, a.role)}"
            if a.name in bound:     # a torch port: which tensor of the forward this is, flattened
                why += f"; the forward's {bound[a.name]}, flattened row-major"
        else:
            why = f"= {vals[a.name]}"
        lines.append(f"  {_c_param(a):<{width}}  // {why}")
    tol = "exactly" if b.atol == 0 and b.rtol == 0 else f"within |out - ref| <= {b.atol:g} + {b.rtol:g} * |ref|"
    c_src = (task.meta or {}).get("c_source") if task.kind == "c" else None
    if c_src:       # a port task: the sequential C is what to port; the naive port is the bar to beat
        lines += ["", f"The sequential C reference ({task.meta.get('function', 'function')}), the semantics to port:",
                  "```c", c_src.strip(), "```"]
    torch_src = (task.meta or {}).get("torch_source") if task.kind == "torch" else None
    if torch_src:   # a torch task with a raw-kernel port: the PyTorch Model is the semantics
        lines += ["", "The PyTorch reference (Model.forward at the sizes above), the semantics to port:",
                  "```python", torch_src.strip(), "```"]
    lines += [f"Checked outputs must match the reference {tol}.", "",
              f"Baseline (the time your speedup is measured against; variant {b.variant}):",
              "```cuda", launch_line(b), b.source.rstrip("\n"), "```", "",
              reply_format(ints)]
    return "\n".join(lines) + "\n"
