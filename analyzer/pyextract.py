"""CUDA carried inside Python: `load_inline(cuda_sources=...)`, CuPy `RawKernel`/`RawModule`,
PyCUDA `SourceModule`.

RL pipelines and KernelBench-style solutions pass CUDA as strings. This finds
those strings with the standard `ast` module (literals, and names bound to
literals in the same module) and says where each one starts in the .py file,
so findings can be reported at Python positions. `extract_module` goes further, for
what people actually save as .py: any other string literal holding a `__global__`
kernel (written to a file for `load`, passed through a wrapper), a model's reply
with the code in markdown fences, and Python that does not parse (Python 2, a
half-written solution), whose string literals are still found by the tokenizer.
"""
from __future__ import annotations

import ast
import io
import os
import re
import tokenize
from dataclasses import dataclass, field, replace

_LINE_REF = re.compile(r"\b(line|lines)\s+(\d+)(?:-(\d+))?\b")     # `line 24`, `lines 141-150`
_CALLS = {"load_inline", "RawKernel", "RawModule", "ElementwiseKernel", "ReductionKernel", "SourceModule",
          "DynamicSourceModule"}
# calls whose first positional argument is the CUDA source (CuPy's raw kernels, PyCUDA's modules)
_SOURCE_FIRST = {"RawKernel", "RawModule", "SourceModule", "DynamicSourceModule"}
# load_inline's other source arguments: C++ (or, for ROCm builds, HIP) that may hold kernels too
_OTHER_SOURCES = {"cpp_sources", "sources"}
_KERNEL = "__global__"


@dataclass(frozen=True)
class Embedded:
    source: str
    line: int          # 1-based line in the .py file where the CUDA text starts
    col: int           # 1-based column of its first character
    exact: bool        # positions map exactly (False: escapes or concatenation; lines may drift)
    origin: str        # e.g. "load_inline(cuda_sources=...) at line 12"
    # what the build's command line defines (`-D`): PyTorch's TORCH_DEFINES for load_inline's
    # cuda_sources, less those its extra_cuda_cflags take back; () where not known
    defines: tuple[str, ...] = ()

    def to_python(self, line: int, col: int) -> tuple[int, int]:
        """Map a 1-based (line, col) inside the CUDA text to the .py file."""
        if line == 1:
            return self.line, self.col + col - 1
        return self.line + line - 1, col

    def text_to_python(self, text: str) -> str:
        """A message's references to lines of the CUDA text (`the loop at line 24`, `the launch at
        line 52`) as lines of the .py file."""
        def moved(m: re.Match) -> str:
            first = f"{m.group(1)} {self.to_python(int(m.group(2)), 1)[0]}"
            return first + (f"-{self.to_python(int(m.group(3)), 1)[0]}" if m.group(3) else "")

        return _LINE_REF.sub(moved, text)

    def note_to_python(self, note: str, path: str) -> str:
        """A note of the CUDA text's lint, `path:LINE: ...`, at the .py file's line."""
        head = path + ":"
        line, sep, rest = note[len(head):].partition(":") if note.startswith(head) else ("", "", "")
        if sep and line.isdigit():
            return f"{head}{self.to_python(int(line), 1)[0]}:{self.text_to_python(rest)}"
        return self.text_to_python(note)


def _string_start(src_lines: list[str], node: ast.AST, segment: str) -> tuple[int, int, bool]:
    """Where the string's content begins (after the prefix and opening quotes)."""
    line = src_lines[node.lineno - 1]
    # col_offset is in UTF-8 bytes; convert to characters
    i = len(line.encode("utf-8")[:node.col_offset].decode("utf-8", "replace"))
    col, raw = _content_column(line, i)
    # escapes (`\\n` written out) or implicit concatenation shift positions after them
    exact = (raw or "\\" not in segment) and isinstance(node, ast.Constant) and node.value in segment
    return node.lineno, col, exact


def _content_column(line: str, i: int) -> tuple[int, bool]:
    """The 1-based column where a string literal starting at character `i` of `line` has its first
    character of content, and whether it is a raw string."""
    j = i
    while j < len(line) and line[j] in "rRbBuUfF":
        j += 1
    quote = line[j:j + 3] if line[j:j + 3] in ('"""', "'''") else line[j:j + 1]
    return j + len(quote) + 1, "r" in line[i:j].lower()


def _literal_strings(node: ast.AST, names: dict[str, ast.AST]) -> list[ast.AST]:
    """The string literals (and f-strings) a value spells out: itself, a name bound to one, the
    items of a list, the operands of `+` (each linted on its own, as list items are)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) or isinstance(node, ast.JoinedStr):
        return [node]
    if isinstance(node, ast.Name) and node.id in names:
        return [names[node.id]]
    if isinstance(node, (ast.List, ast.Tuple)):
        out = []
        for elt in node.elts:
            out.extend(_literal_strings(elt, names))
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _literal_strings(node.left, names) + _literal_strings(node.right, names)
    return []


def _is_text(value: ast.AST) -> bool:
    return isinstance(value, ast.Constant) and isinstance(value.value, str) or isinstance(value, ast.JoinedStr)


def _bound_names(tree: ast.AST) -> dict[str, ast.AST]:
    """Names bound to a string literal or an f-string (the last binding wins)."""
    names: dict[str, ast.AST] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _is_text(node.value):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    names[t.id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None \
                and _is_text(node.value):
            names[node.target.id] = node.value
    return names


def _bound_numbers(tree: ast.Module) -> dict[str, int | float]:
    """Module-level names bound to a number (`BLOCK = 256`): what an f-string's `{BLOCK}` renders."""
    def number(v: ast.AST) -> bool:
        return isinstance(v, ast.Constant) and isinstance(v.value, (int, float)) and not isinstance(v.value, bool)

    out: dict[str, int | float] = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        for t in node.targets:
            if isinstance(t, ast.Name) and number(node.value):
                out[t.id] = node.value.value
            elif isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple) and len(t.elts) == len(node.value.elts):
                for name, v in zip(t.elts, node.value.elts):     # `BLOCK, N = 256, 2`
                    if isinstance(name, ast.Name) and number(v):
                        out[name.id] = v.value
    return out


def _render(node: ast.JoinedStr, numbers: dict[str, int | float]) -> str:
    """An f-string's text as Python would build it where the module says the values (`{BLOCK}`
    with `BLOCK = 256`), else with each expression's own text in its place (a name the analyzer
    takes as an unknown symbol or type; an expression in brackets)."""
    parts = []
    for v in node.values:
        if isinstance(v, ast.Constant):
            parts.append(str(v.value))
        elif isinstance(v, ast.FormattedValue):
            e = v.value
            if isinstance(e, ast.Name) and e.id in numbers:
                parts.append(str(numbers[e.id]))
            elif isinstance(e, ast.Name):   # `{dtype} acc;`, `void {name}(`: bare, where a type or name may stand
                parts.append(e.id)
            elif isinstance(e, ast.Constant):
                parts.append(str(e.value))
            else:   # `{N + 1}`: its value where the numbers decide it, else the expression in brackets
                value = _python_value(e, numbers)
                # (Python's `//` would open a C comment; for the sizes written here C's `/` agrees)
                parts.append(str(value) if value is not None else f"({ast.unparse(e).replace('//', '/')})")
    return "".join(parts)


_ARITHMETIC = (ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load, ast.Add, ast.Sub, ast.Mult, ast.Div,
               ast.FloorDiv, ast.Mod, ast.BitAnd, ast.BitOr, ast.BitXor, ast.USub, ast.UAdd, ast.Invert)


def _python_value(e: ast.expr, numbers: dict[str, int | float]) -> int | float | None:
    """An f-string expression's value as Python computes it (`{N // 2}`, `{N / 4}`), where it is
    arithmetic on numbers and the module's number names; None otherwise. No powers or shifts: they
    are how a few characters ask for an enormous number."""
    for n in ast.walk(e):
        if not isinstance(n, _ARITHMETIC) or isinstance(n, ast.Name) and n.id not in numbers \
                or isinstance(n, ast.Constant) and (not isinstance(n.value, (int, float)) or isinstance(n.value, bool)):
            return None
    try:
        return eval(compile(ast.Expression(e), "<f-string>", "eval"), {"__builtins__": {}}, dict(numbers))  # noqa: S307 - vetted above
    except (ArithmeticError, ValueError, TypeError):
        return None


def _call_name(func: ast.AST) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def extract(python_source: str) -> list[Embedded]:
    """Every CUDA string passed to load_inline / CuPy kernels / PyCUDA modules in a Python module.

    Raises SyntaxError for Python that does not parse.
    """
    return extract_with_skipped(python_source)[0]


def extract_with_skipped(python_source: str) -> tuple[list[Embedded], list[tuple[int, str]]]:
    """`extract`, and the calls whose CUDA the module does not spell out (read from a file, built
    by a function, bound elsewhere): (line, call name) each, for a note that they were not linted."""
    tree = ast.parse(python_source)
    out, skipped, _ = _from_calls(tree, python_source)
    return out, skipped


@dataclass
class Extraction:
    """What `extract_module` found: the CUDA texts, the calls whose CUDA the module does not spell
    out, and notes of how the texts were found where that was not the calls (line, text)."""
    embedded: list[Embedded] = field(default_factory=list)
    skipped: list[tuple[int, str]] = field(default_factory=list)
    notes: list[tuple[int, str]] = field(default_factory=list)


def extract_module(text: str) -> Extraction:
    """The CUDA of a .py file as people save it: the strings `extract` finds, and any other string
    literal holding a `__global__` kernel; the code blocks of a model's reply in markdown fences
    (```python blocks read as Python, ```cuda / ```cpp blocks as CUDA); for Python that does not
    parse, its string literals found by the tokenizer. Raises SyntaxError where Python does not
    parse and nothing holding a kernel is found either way."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        return _unparsed(text, exc)
    out, skipped, seen = _from_calls(tree, text)
    lines = text.splitlines()
    loose = []
    seen |= _bare_strings(tree)
    # an f-string's pieces are parts of its text, not strings of their own
    seen |= {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
             for part in ast.walk(node) if part is not node}
    numbers = None
    for node in ast.walk(tree):
        if id(node) in seen or not _holds_kernel(node):
            continue
        origin = f"a string holding {_KERNEL} at line {node.lineno}"
        line, col, exact = _string_start(lines, node, ast.get_source_segment(text, node) or "")
        if isinstance(node, ast.JoinedStr):
            numbers = _bound_numbers(tree) if numbers is None else numbers
            loose.append(Embedded(_render(node, numbers), line, col, False, origin))
        else:
            loose.append(Embedded(node.value, line, col, exact, origin))
    out = sorted(out + loose, key=lambda e: (e.line, e.col))
    # a call's CUDA built elsewhere is most likely among the loose strings: no note then
    return Extraction(out, skipped if not loose else [], [])


def _bare_strings(tree: ast.Module) -> set[int]:
    """The string literals that are statements of their own (docstrings and the like): prose that no
    code passes anywhere, not CUDA."""
    return {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}


def _from_calls(tree: ast.Module, python_source: str) -> tuple[list[Embedded], list[tuple[int, str]], set[int]]:
    """The strings the module's CUDA-taking calls are given: (texts, calls not spelled out, ids of
    the literal nodes taken)."""
    names = _bound_names(tree)
    numbers = _bound_numbers(tree)
    lines = python_source.splitlines()
    out: list[Embedded] = []
    skipped: list[tuple[int, str]] = []
    seen: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fname = _call_name(node.func)
        if fname not in _CALLS:
            continue
        candidates, others = [], []
        defines = _torch_build_defines(node, tree) if fname == "load_inline" else ()
        for kw in node.keywords:
            if kw.arg == "cuda_sources" or (kw.arg in ("code", "source") and fname != "load_inline"):
                candidates.append(kw.value)
            elif kw.arg in _OTHER_SOURCES and fname == "load_inline":
                others.append(kw.value)
        if fname in _SOURCE_FIRST and node.args:
            candidates.append(node.args[0])
        for value, must_hold_kernel in [(v, False) for v in candidates] + [(v, True) for v in others]:
            found = _literal_strings(value, names)
            if not found and not must_hold_kernel:
                skipped.append((node.lineno, fname))
            for const in found:
                if id(const) in seen or must_hold_kernel and not _holds_kernel(const):
                    continue
                seen.add(id(const))
                segment = ast.get_source_segment(python_source, const) or ""
                if isinstance(const, ast.JoinedStr):
                    text = _render(const, numbers)
                    line, col, _ = _string_start(lines, const, segment)
                    # `{{`, `{BLOCK}` -> `{`, `256`: columns after them move (lines do not, unless
                    # an expression spans lines)
                    out.append(Embedded(text, line, col, False, f"{fname}(...) at line {node.lineno}",
                                        () if must_hold_kernel else defines))
                    continue
                line, col, exact = _string_start(lines, const, segment)
                out.append(Embedded(const.value, line, col, exact, f"{fname}(...) at line {node.lineno}",
                                    () if must_hold_kernel else defines))
    out.sort(key=lambda e: (e.line, e.col))
    return out, skipped, seen


def _torch_build_defines(call: ast.Call, tree: ast.Module) -> tuple[str, ...]:
    """What nvcc is given `-D` of for a load_inline call's cuda_sources: PyTorch's TORCH_DEFINES less
    those its `extra_cuda_cflags` undefine; () where those flags are not spelled out in the file."""
    from .directives import torch_defines

    value = next((kw.value for kw in call.keywords if kw.arg == "extra_cuda_cflags"), None)
    if value is None:
        return torch_defines(())
    if isinstance(value, ast.Name):     # bound once, to a list of strings
        bound = [n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == value.id for t in n.targets)]
        value = bound[0] if len(bound) == 1 else None
    if not isinstance(value, (ast.List, ast.Tuple)) or not all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
        return ()
    return torch_defines([e.value for e in value.elts])


def _holds_kernel(node: ast.AST) -> bool:
    """A string literal or f-string whose text has a `__global__`."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and _KERNEL in node.value
    return isinstance(node, ast.JoinedStr) and any(
        isinstance(v, ast.Constant) and _KERNEL in str(v.value) for v in node.values)


# ------------------------------------------------------------------ text that is not Python

_PYTHON_FENCES = {"python", "py", "python3", "py3"}
_AT_LINE = re.compile(r"at line (\d+)")


def _unparsed(text: str, exc: SyntaxError) -> Extraction:
    """Python that does not parse: a reply's fenced code blocks if it has them, else the string
    literals the tokenizer finds. Raises `exc` when neither holds a kernel."""
    where = f"Python does not parse ({exc.msg}, line {exc.lineno})"
    fenced = extract_fenced(text)
    if fenced.embedded:
        return fenced
    found = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.STRING and _KERNEL in tok.string:
                try:
                    value = ast.literal_eval(tok.string)
                except (ValueError, SyntaxError):
                    continue
                if isinstance(value, str):
                    col, raw = _content_column(tok.line.splitlines()[0] if tok.line else "", tok.start[1])
                    exact = raw or "\\" not in tok.string
                    found.append(Embedded(value, tok.start[0], col, exact,
                                          f"a string holding {_KERNEL} at line {tok.start[0]}"))
    except (tokenize.TokenError, SyntaxError):
        pass
    if not found:
        raise exc
    return Extraction(found, [], [(0, f"{where}: linted the CUDA in its string literals")])


# a model's reply saved as text: its fenced code blocks (a .txt without fences is plain CUDA)
REPLY_SUFFIXES = (".md", ".markdown", ".txt")


def extract_file(name: str, text: str) -> Extraction | None:
    """The CUDA a file carries, by its kind: a .py file's strings (`extract_module`: SyntaxError where
    Python does not parse and holds no kernel), a reply's code blocks (.md, .markdown, .txt); None
    for a file that is CUDA as it is (.cu, .cuh, a .txt without a kernel block)."""
    suffix = os.path.splitext(name)[1]
    if suffix == ".py":
        return extract_module(text)
    if suffix.lower() in REPLY_SUFFIXES:
        found = extract_fenced(text)
        return found if found.embedded or suffix.lower() != ".txt" else None
    return None


def extract_fenced(text: str) -> Extraction:
    """The CUDA of a model's reply (markdown, a .txt of a completion): its ```python blocks read as
    Python (`extract_module`), its ```cuda / ```cpp / ```c++ blocks and unlabelled blocks holding a
    `__global__` kernel as CUDA, each at the reply's lines. Empty where no block holds a kernel."""
    from .fences import blocks

    got = Extraction()
    for block in blocks(text.replace("\r\n", "\n")):
        lang, first_line, body = block.lang, block.line, block.text
        if lang in _PYTHON_FENCES or not lang:
            try:
                inner = extract_module(body)
            except SyntaxError:
                inner = None
            if inner is not None:
                shift = first_line - 1
                moved = lambda m: f"at line {int(m.group(1)) + shift}"    # noqa: E731
                got.embedded += [replace(e, line=e.line + shift, origin=_AT_LINE.sub(moved, e.origin))
                                 for e in inner.embedded]
                got.skipped += [(line + shift, call) for line, call in inner.skipped]
                got.notes += [(line + shift if line else 0, note) for line, note in inner.notes]
                continue
            if lang:
                continue
        if _KERNEL in body:     # ```cuda, ```cpp, ```c++, ```cu...; or an unlabelled block of CUDA
            got.embedded.append(Embedded(body, first_line, 1, True, f"the ```{lang} block at line {first_line - 1}"))
    if got.embedded:
        got.notes.insert(0, (0, "markdown code blocks (a model's reply?): linted the CUDA inside them"))
    return got
