"""tree-sitter-cuda -> a small model of one CUDA file.

The model holds what the rest of the analyzer needs: kernels and device
functions with their parameters, `__shared__` arrays, `__launch_bounds__`,
launch sites `<<<grid, block, smem, stream>>>` and simple constants. Trees
that only partly parse are normal in real code: what parsed is analyzed and
the rest is reported as parse errors, never an exception.
"""
from __future__ import annotations

import ast
import bisect
import keyword
import math
import re
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from . import ParserUnavailable
from ._records import fast_init
from .directives import DIRECTIVES, OPEN, Macros, holds, lookup_for

# ------------------------------------------------------------------ the parser

MIN_TREE_SITTER = (0, 25)


@lru_cache(maxsize=1)
def _language():
    try:
        import tree_sitter
        import tree_sitter_cuda
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ParserUnavailable(
            f"cannot import the CUDA parser ({exc.name}): run `pip install 'tree-sitter>=0.25,<0.27' tree-sitter-cuda==0.21.2`"
        ) from exc
    try:
        return tree_sitter.Language(tree_sitter_cuda.language())
    except ValueError as exc:  # "Incompatible Language version 15. Must be between 13 and 14"
        raise ParserUnavailable(
            f"tree-sitter {getattr(tree_sitter, '__version__', '?')} cannot load tree-sitter-cuda's grammar ({exc}); "
            "install 'tree-sitter>=0.25,<0.27'"
        ) from exc


class _FieldIds:
    """tree-sitter field ids by name (`FIELD.body`), for `child_by_field_id`: `child_by_field_name`
    looks the name up in the grammar on every call, which costs 4x the child lookup itself."""

    def __getattr__(self, name: str) -> int:   # the first use of a name only
        fid = _language().field_id_for_name(name)
        if fid is None:
            raise AttributeError(f"tree-sitter-cuda has no field {name!r}")
        setattr(self, name, fid)
        return fid


FIELD = _FieldIds()


def code_children(node) -> list:
    """A node's named children without its comments. tree-sitter puts a comment wherever it stands
    in the text, as a named child of whatever encloses it: `if (i < n /* in range */)`,
    `f(x /* value */, a)`, `<<<grid, /* threads */ 256>>>`. Code that reads children by position
    (the last of a block, the second of a launch's configuration) must not count it."""
    return [c for c in node.named_children if c.type != "comment"]


def compact_name(name: str) -> str:
    """A name expression without its spaces (`k<float, 4>` -> `k<float,4>`): how an explicit
    specialization's name (`template <> __global__ void k<float, 4>(...)`) is compared."""
    return "".join(name.split())


def namespaces_of(node) -> tuple[str, ...]:
    """The namespaces around a node, innermost first (`a::k` and `k` are two names)."""
    names = []
    node = node.parent
    while node is not None:
        if node.type == "namespace_definition":
            name = node.child_by_field_id(FIELD.name)
            names.append(name.text.decode("utf-8", "replace") if name is not None else "")
        node = node.parent
    return tuple(names)


def _dim3_arguments(value, base: str):
    """The arguments of a dim3 local's initializer: `dim3 b(32, 8)` (an init_declarator's
    argument_list where the grammar does not take it for a function), `dim3 b{32, 8}`,
    `dim3 b = {32, 8}`, `dim3 b = dim3(32, 8)`, `auto b = dim3(32, 8)`; None for another value."""
    t = value.type
    if base == "dim3" and t in ("argument_list", "initializer_list"):
        return value
    if t == "call_expression" and base in ("dim3", "auto"):
        fn = value.child_by_field_id(FIELD.function)
        if fn is not None and fn.type == "identifier" and fn.text == b"dim3":
            return value.child_by_field_id(FIELD.arguments)
    return None


def _launched_kernel(node):
    """The kernel a launch API is given (`k`, `&k`, `(void*)k`, `(const void*)&ns::k<128, 4>`,
    `reinterpret_cast<const void*>(k<128>)`): its identifier or template_function node, or None."""
    while node is not None:
        t = node.type
        if t in ("identifier", "template_function"):
            return node
        if t == "cast_expression":
            node = node.child_by_field_id(FIELD.value)
        elif t == "pointer_expression":
            node = node.child_by_field_id(FIELD.argument)
        elif t == "qualified_identifier":
            node = node.child_by_field_id(FIELD.name)
        elif t == "call_expression":            # reinterpret_cast<const void*>(k)
            fn = node.child_by_field_id(FIELD.function)
            cast = fn.child_by_field_id(FIELD.name) if fn is not None and fn.type == "template_function" else None
            # hipLaunchKernelGGL(HIP_KERNEL_NAME(k<a, b>), ...): the kernel inside, as in a cast
            hip_name = fn is not None and fn.type == "identifier" and fn.text == b"HIP_KERNEL_NAME"
            if not hip_name and (cast is None or not cast.text.endswith(b"_cast")):
                return None
            inner = code_children(node.child_by_field_id(FIELD.arguments))
            node = inner[0] if len(inner) == 1 else None
        elif t == "parenthesized_expression":
            inner = code_children(node)
            node = inner[0] if len(inner) == 1 else None
        else:
            return None
    return None


def parser():
    import tree_sitter

    return tree_sitter.Parser(_language())


_PARSER = None


def _get_parser():
    global _PARSER
    if _PARSER is None:
        _PARSER = parser()
    return _PARSER


# ------------------------------------------------------------------ records

@fast_init
@dataclass(frozen=True)
class Param:
    name: str
    type: str               # base type without qualifiers, e.g. "float", "float4", "T"
    pointer: int            # levels of indirection (0 for a scalar)
    const: bool = False
    restrict: bool = False
    # a pointer to arrays (`float (*a)[W]`, `float a[][W]`): the sizes of the arrays it points to, as written
    dims: tuple[str, ...] = ()
    default: str | None = None    # a default argument as written (`int stride = 1`)


@fast_init
@dataclass(frozen=True)
class SharedArray:
    name: str
    type: str
    dims: tuple[int | None, ...]   # None where the size is not a known constant (or extern [])
    extern: bool
    line: int
    space: str = "shared"          # "shared" or "constant" or "device"
    # each dimension's size expression (outermost first; None for `[]`): a size the file's constants
    # do not give (`float tile[TILE][TILE + 1]` in a template) is known once the template arguments are
    size_nodes: tuple = field(default=(), repr=False, compare=False)


@fast_init
@dataclass(frozen=True)
class LaunchBounds:
    max_threads: int | None
    min_blocks: int | None
    # the arguments as written: a template parameter's value is known only for an instantiation
    exprs: tuple[str, ...] = ()


@dataclass
class Function:
    name: str
    kind: str                      # "global", "device", "host"
    params: tuple[Param, ...]
    line: int                      # 1-based
    col: int                       # 1-based
    end_line: int
    node: object = field(repr=False)          # function_definition node
    body: object = field(repr=False)
    template_params: dict[str, int | None] = field(default_factory=dict)
    launch_bounds: LaunchBounds | None = None
    shared: tuple[SharedArray, ...] = ()      # declared inside the body
    max_registers: int | None = None          # `__maxnreg__(n)` (CUDA 12.4): ptxas's cap on registers
    # a kernel only because the file launches it (its head reads as host code: a header's macro
    # may hold its `__global__`; Program._launched_are_kernels)
    launched_only: bool = False

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


_LAUNCH_APIS = frozenset(("cudaLaunchKernel", "cudaLaunchCooperativeKernel", "hipLaunchKernel",
                          "hipLaunchCooperativeKernel"))
# HIP's launch macro, in ROCm ports of CUDA code: `hipLaunchKernelGGL(k, grid, block, smem, stream, args...)`
_LAUNCH_GGL = "hipLaunchKernelGGL"
# CUDA 12's launch with attributes (a cluster's shape): `cudaLaunchKernelEx(&config, k, args...)`
_LAUNCH_EX_APIS = frozenset(("cudaLaunchKernelEx", "cudaLaunchKernelExC"))
# cudaLaunchConfig_t's members in declaration order (an aggregate initializer gives them so)
_CONFIG_FIELDS = ("gridDim", "blockDim", "dynamicSmemBytes")


@fast_init
@dataclass(frozen=True)
class Launch:
    kernel: str
    template_args: tuple[str, ...]
    grid: tuple[int, int, int] | None       # None where not a compile-time constant
    block: tuple[int, int, int] | None
    smem: int | None
    line: int
    col: int
    grid_text: str = ""
    block_text: str = ""
    args: tuple[int | float | None, ...] = ()   # each argument's value where a constant decides it
    # the block's dimensions where some are constants and others not (`dim3 b(1, BLOCK_SIZE, 1)`
    # with BLOCK_SIZE from a header): None each unknown; () where block is known or nothing is
    block_dims: tuple[int | None, ...] = ()
    # every grid dimension a floor division (`dim3 grid(w / threads.x, h / threads.y)`): the grid
    # covers no more threads than the data, so no last block overhangs it
    grid_exact: bool = False
    # the positions of arguments whose value in `args` is the one host code gives them at the first
    # launch, though it changes between launches: a host loop's counter (`for (int k = 0; ...)
    # k<<<...>>>(A, k)`: 0), a local stepped after the launch (`++offset`), what is computed from them
    loop_first: tuple[int, ...] = ()


@fast_init
@dataclass(frozen=True)
class Instantiation:
    """An explicit instantiation of a template kernel (`template __global__ void k<256, 2>(...);`):
    the template arguments a kernel the file never launches is compiled with."""
    kernel: str
    template_args: tuple[str, ...]
    line: int


@fast_init
@dataclass(frozen=True)
class ParseError:
    line: int
    col: int
    end_line: int
    message: str


@dataclass
class Program:
    path: str
    source: bytes                 # as parsed (after the offset-preserving macro pre-pass)
    tree: object = field(repr=False)
    functions: list[Function]
    launches: list[Launch]
    constants: dict[str, int | float]
    globals_: list[SharedArray]   # file-scope __shared__/__constant__/__device__ arrays
    errors: list[ParseError]
    structs: dict[str, int]       # struct name -> size in bytes, where every field is a known type
    fields: dict[str, dict[str, tuple[int, str]]] = field(default_factory=dict)  # struct -> field -> (offset, type)
    aliases: dict[str, str] = field(default_factory=dict)  # typedef / using / #define names of types
    # the source as str when it is ASCII (byte offsets are then str offsets): `text` slices it
    # instead of decoding a bytes slice on each of its ~10^3 calls per file. The builder, which
    # slices it too, passes the one it decoded.
    _ascii: str | None = field(default=None, repr=False, compare=False)
    # the file as written (what a compiler must see: the pre-pass blanks code tree-sitter cannot
    # read), and where the pre-pass moved offsets: (end of a macro expansion in `source`,
    # how far later offsets of `source` lie past those of `original`, its start in `source`)
    original: bytes | None = field(default=None, repr=False, compare=False)   # None: `source`
    shifts: tuple[tuple[int, int, int], ...] = field(default=(), repr=False, compare=False)
    instantiations: list[Instantiation] = field(default_factory=list)   # in source order
    # the names the file #defines, at the offset of the first definition (conditional directives
    # in bodies are decided by those defined before them), and what the compile defines besides
    defines: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    macros: Macros = field(default=OPEN, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.original is None:
            self.original = self.source
        if self._ascii is None and self.source.isascii():
            self._ascii = self.source.decode("ascii")

    def resolve_type(self, name: str, extra: dict[str, str] | None = None) -> str:
        """Follow typedefs, `using`, type #defines and (extra) template type arguments."""
        name = " ".join(name.replace("const", " ").replace("volatile", " ").split())
        for _ in range(8):
            nxt = (extra or {}).get(name) or self.aliases.get(name)
            if nxt is None or nxt == name:
                break
            name = " ".join(nxt.replace("const", " ").replace("volatile", " ").split())
        return name

    def type_size(self, name: str, extra: dict[str, str] | None = None) -> int | None:
        return type_size(self.resolve_type(name, extra), self.structs)

    def original_offset(self, offset: int) -> int:
        """A byte offset of `source` in `original` (not inside an expanded macro)."""
        return _original_offset(self.shifts, offset)

    def expansion_at(self, offset: int) -> tuple[int, int, int] | None:
        """(start, end) in `source` of the macro expansion that holds this offset of `source`, and
        the invocation's offset in `original`; None where no expansion does."""
        i = bisect.bisect_right(self.shifts, (offset, math.inf))
        if i < len(self.shifts) and self.shifts[i][2] <= offset:
            end, _delta, start = self.shifts[i]
            return start, end, start - (self.shifts[i - 1][1] if i else 0)
        return None

    def original_column(self, line: int, col: int) -> int:
        """The 1-based column in `original` of a position of `source` (a finding's): the same
        line, its column moved back over the macro expansions before it on that line."""
        if not self.shifts or line < 1:
            return col
        starts = self.line_starts()
        if line > len(starts):
            return col
        start = starts[line - 1]
        at = start + col - 1
        inside = self.expansion_at(at)      # in a macro's expansion: the invocation's column
        return (inside[2] if inside is not None else _original_offset(self.shifts, at)) - \
            _original_offset(self.shifts, start) + 1

    def line_starts(self) -> list[int]:
        """The byte offset in `source` where each line starts (index 0: line 1); made once."""
        starts = self.__dict__.get("_line_starts")
        if starts is None:
            starts = [0]
            at = self.source.find(b"\n")
            while at >= 0:
                starts.append(at + 1)
                at = self.source.find(b"\n", at + 1)
            self.__dict__["_line_starts"] = starts
        return starts

    @property
    def kernels(self) -> list[Function]:
        return [f for f in self.functions if f.kind == "global"]

    def function(self, name: str) -> Function | None:
        return next((f for f in self.functions if f.name == name), None)

    def function_at(self, offset: int) -> Function | None:
        """The function whose definition holds a byte offset of `source`; None outside every one."""
        return next((f for f in self.functions if f.node.start_byte <= offset < f.node.end_byte), None)

    def launches_of(self, name: str) -> list[Launch]:
        """The launches of the kernel named `name`; of an explicit specialization (named `k<float>`),
        those with its template arguments (`k<float><<<...>>>`)."""
        if "<" not in name:
            return [l for l in self.launches if l.kernel == name]
        full = compact_name(name)
        return [l for l in self.launches if l.kernel == name or (
            l.template_args and compact_name(f"{l.kernel}<{','.join(l.template_args)}>") == full)]

    def text(self, node) -> str:
        s = self._ascii
        if s is not None:
            return s[node.start_byte:node.end_byte]
        return self.source[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def directive_holds(self, node) -> bool | None:
        """Whether the first branch of a conditional directive in device code (a kernel's or device
        function's body) is compiled: analyzer.directives.holds over the file's macros defined
        before it and the compile's."""
        return _device_holds(node, self.text, self.defines, self.constants, self.macros)

    def surely_compiled(self, node) -> bool:
        """Whether the device pass compiles a node whatever the build adds: every conditional
        directive around it is decided and takes its branch (`#ifdef __CUDACC__` does; an `#if` on
        `CUDART_VERSION` or a `-D` name is undecided)."""
        return all(taken is not None and taken != in_alternative
                   for taken, in_alternative in _branches(node, None, self.directive_holds))


def _device_holds(node, text, defines: dict[str, int], constants, macros: Macros) -> bool | None:
    at = node.start_byte
    return holds(node, text, lookup_for(lambda name: defines.get(name, at) < at, constants, macros, True))


def _branches(node, stop, decide):
    """(whether the first branch is compiled, by `decide`: a bool or None; whether `node` is in the
    directive's alternative) for each conditional directive around `node`, below `stop` (None: all)."""
    child, n = node, node.parent
    while n is not None and n != stop:
        if n.type in DIRECTIVES:
            yield decide(n), child == n.child_by_field_id(FIELD.alternative)
        child, n = n, n.parent


# ------------------------------------------------------------------ macro pre-pass

# Tokens the grammar does not know and that break trees around them. Each is blanked
# with spaces of the same length so byte offsets (and so line:col) stay right.
_BLANK_CALLS = re.compile(rb"\b(?:__align__|__maxnreg__|__launch_bounds_ex__|__cluster_dims__|_Pragma|__declspec|__attribute__)\s*\(")
# C++ attributes (`[[unlikely]]`, `[[maybe_unused]]`): nothing the analysis reads, and on a statement
# they wrap it (`if (i >= n) [[unlikely]] return;` was no early exit to the bounds check)
_STD_ATTRIBUTE = re.compile(rb"\[\[[^\[\]\n]*\]\]")
# SFINAE's unnamed pointer template parameter (`typename std::enable_if<C>::type* = nullptr`,
# `std::enable_if_t<C>* = nullptr`): the grammar reads `::type = 0` but not the `*` before the default
_SFINAE_POINTER = re.compile(rb"(?:::type|>)[ \t]*(\*)[ \t]*=[ \t]*nullptr\b")
_MAXNREG = re.compile(rb"\b__maxnreg__\s*\(([^()]*)\)")
# `#define MAXREG(n) __maxnreg__(n)`, `#define KERNEL_REGS __maxnreg__(64)`: the cap behind a macro
_MAXNREG_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)(?:\(([ \t]*\w*[ \t]*)\))?[ \t]+"
                            rb"__maxnreg__\s*\(([^()\n]*)\)[ \t]*$", re.M)
# `__global__ void __no_cluster__ k(...)` (CUDA 12.8): unknown, the word reads as the kernel's name
_BLANK_WORDS = re.compile(rb"\b__no_cluster__\b")
_PRAGMA_MACRO = re.compile(rb"^[ \t]*([A-Z][A-Z0-9_]*PRAGMA[A-Z0-9_]*(?:\s*\([^()\n]*\))?)[ \t]*$|\b([A-Z][A-Z0-9_]*_PRAGMA_UNROLL[A-Z0-9_]*)\b", re.M)
# `#pragma unroll` between a loop header and an unbraced body breaks the tree; loops read the same without it.
# `TCNN_NAMESPACE_BEGIN` / `CUB_NAMESPACE_END` alone on a line: a namespace's braces behind a
# header's macro; unknown, the file's end reads as a missing `;`.
_NAMESPACE_MACRO = re.compile(rb"^[ \t]*[A-Z][A-Z0-9_]*(?:NAMESPACE_(?:BEGIN|END|OPEN|CLOSE)|(?:BEGIN|END)_NAMESPACE)[ \t]*;?[ \t]*$", re.M)
# A statement macro from an unseen header whose definition holds its `;` (`SYNC_WARPS`,
# `USING_ACCSCALAR_T`), alone on an indented line after a statement: unknown, it reads as the type
# of a declaration of the next line, which swallows that statement (a launch, a shared store).
_LONE_MACRO = re.compile(rb"\n[ \t]+([A-Z][A-Z0-9_]{2,}[A-Z0-9])[ \t]*\r?(?=\n)")   # from \n: 4x faster than ^ with re.M
# a launch written with its chevrons apart: `<< <` ... `>> >` (groups 1, 2)
_SPACED_LAUNCH = re.compile(rb"(<<[ \t]+<)[^<>;]*?(>>[ \t]+>)")
# a braced dim3 in a launch configuration: `<<<grid, {bx, by, 1}, smem>>>`
_BRACED_LAUNCH = re.compile(rb"<<<[^<>{};]*?(\{[^{}<>;]*\})[^<>;]*?>>>")
# a header's macro alone on a line before a template (`CUCO_SUPPRESS_KERNEL_WARNINGS`, pragmas
# behind a name): nothing a declaration can start with, and unknown it breaks the template after it
_MACRO_BEFORE_TEMPLATE = re.compile(rb"\n([A-Z][A-Z0-9_]{2,}[A-Z0-9])[ \t]*\r?\n(?=(?:[ \t]*\r?\n)*[ \t]*template\b)")  # from \n: 6x faster than ^
_PRAGMA_UNROLL = re.compile(rb"^[ \t]*#[ \t]*pragma[ \t]+(?:unroll|nounroll)\b[^\n]*$", re.M)
# A long initializer of numbers (a generated table of weights or coefficients): nothing the
# analysis reads, and most of a file's parse time where there is one.
_TABLE_MIN_BYTES = 4096
_TABLE_CHARS = b"-+0123456789.xXabcdefABCDEFuUlL, \t\n\r\x0b\x0c"   # numbers, commas, space; and braces
_TABLE = re.compile(rb"=\s*\{([" + re.escape(_TABLE_CHARS) + rb"{}]{%d,})\}" % _TABLE_MIN_BYTES)
_SOURCE_TEXT = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_TO_SPACE = bytes(b if b in (10, 13) else 32 for b in range(256))   # bytes.translate: blank but line ends
_TRAILING_COMMENT = re.compile(r"//[^\n]*$|/\*.*?\*/", re.S)
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]*)$", re.M)
_QUALIFIERS = {b"__host__", b"__device__", b"__forceinline__", b"inline", b"static", b"__inline__",
               b"__noinline__", b"constexpr", b"__global__", b"extern", b"\"C\""}
# Used as r"\b" + this: `_word_starts` checks the leading boundary (see there)
_QUALIFIER_SUFFIX = re.compile(rb"[A-Z][A-Z0-9_]*_(?:DEVICE|HOST|HOST_DEVICE|DEVICE_INLINE|INLINE|FORCEINLINE|HD|DI|GLOBAL|KERNEL|API|FUNC|QUALIFIERS)\b")
# What every match of _QUALIFIER_SUFFIX ends with. Searched for first: most files have none, and
# this literal-led search costs a sixth of the full scan, which stops at every capital letter.
_QUALIFIER_TAIL = re.compile(rb"_(?:DEVICE|HOST|HOST_DEVICE|DEVICE_INLINE|INLINE|FORCEINLINE|HD|DI|GLOBAL|KERNEL|API|FUNC|QUALIFIERS)\b")
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def word_offsets(src: bytes, word: bytes, start: int = 0, end: int | None = None) -> list[int]:
    """Where `word` stands as a whole word (not inside a longer name) in src[start:end]."""
    end = len(src) if end is None else end
    out = []
    at = src.find(word, start, end)
    while at >= 0:
        after = at + len(word)
        if (not at or src[at - 1] not in _WORD_BYTES) and (after >= len(src) or src[after] not in _WORD_BYTES):
            out.append(at)
        at = src.find(word, after, end)
    return out
_SHARED_WORD = re.compile(rb"__shared__\b")     # as r"\b" + this (`_word_starts`)
# A header's launch-bounds macro before a kernel (PyTorch's `C10_LAUNCH_BOUNDS_1(1024)`, placed
# between `template <...>` and `__global__`): unknown, it detaches the template from the kernel,
# which then is no kernel at all. It stands for `__launch_bounds__(...)` with the same arguments.
_LAUNCH_BOUNDS_MACRO = re.compile(rb"[A-Z][A-Z0-9_]*LAUNCH_BOUNDS[A-Z0-9_]*\b")
_LAUNCH_BOUNDS = b"__launch_bounds__"
# ... and such a line alone inside `#if ... #endif` (PyTorch: `#if __CUDA_ARCH__ >= 350 || defined
# USE_ROCM`): the group breaks the declaration; the bound holds on every current arch.
_GUARDED_BOUNDS = re.compile(rb"^([ \t]*#[ \t]*if[^\n]*)\n[ \t]*__launch_bounds__[^\n]*\n([ \t]*#[ \t]*endif[^\n]*)$", re.M)


def _word_starts(pattern: re.Pattern, src: bytes):
    """The matches `re.finditer(rb"\b" + pattern.pattern, src)` gives, for a pattern that starts
    with a word character: a leading `\b` keeps `re` from skipping ahead to the pattern's first
    character, so the boundary is checked here and the search resumes one byte on."""
    pos = 0
    while True:
        m = pattern.search(src, pos)
        if m is None:
            return
        start = m.start()
        if start and src[start - 1] in _WORD_BYTES:
            pos = start + 1
            continue
        yield m
        pos = m.end()


def _directives(pattern: re.Pattern, src: bytes):
    """The matches `pattern.finditer(src)` gives, for a MULTILINE pattern that begins
    `^[ \t]*#`: only lines whose first non-blank character is `#` can match, and the pattern
    is tried at their starts (a scan of every position costs ~40 us on a 5 KB file). Matches
    do not overlap: a line inside the previous match is not tried."""
    end = 0
    for line_start in _directive_lines(src):
        if line_start >= end:
            m = pattern.match(src, line_start)
            if m is not None:
                yield m
                end = m.end()


_LAST_LINES: tuple = (None, ())    # the last text _directive_lines read, and its answer (one object: threads)


def _directive_lines(src: bytes) -> tuple[int, ...]:
    """The starts of the lines whose first non-blank character is `#`. Kept for the last text:
    the pre-pass asks it of one text for several patterns."""
    global _LAST_LINES
    last = _LAST_LINES
    if last[0] is src or last[0] == src:
        return last[1]
    starts = []
    at = src.find(b"#")
    while at >= 0:
        line_start = src.rfind(b"\n", 0, at) + 1
        if not src[line_start:at].strip(b" \t"):
            starts.append(line_start)
        at = src.find(b"#", max(at + 1, src.find(b"\n", at) + 1 or len(src)))
    if type(src) is not bytes:
        return tuple(starts)     # a bytearray may change: not kept
    _LAST_LINES = (src, tuple(starts))
    return _LAST_LINES[1]


def _blank(buf: bytearray, start: int, end: int) -> None:
    for i in range(start, end):
        if buf[i] not in (10, 13):
            buf[i] = 32


def _file_scope_tables(src: bytes):
    """(start, end) of the contents of file-scope initializers `= { numbers }` of at least
    _TABLE_MIN_BYTES.

    Their numbers are never read (the parse model takes array shapes from declarators; the walk
    sees kernel bodies only, where an initializer's float literals count, so local tables stay).
    A table is at file scope where the braces before it, outside comments and literals, balance."""
    depth, scanned = 0, 0
    for m in _TABLE.finditer(src):
        body = m.group(1)
        level = 0
        for c in body.translate(None, _TABLE_CHARS):   # its braces, in order
            level += 1 if c == 123 else -1
            if level < 0:
                break
        if level:
            continue    # unbalanced: a brace of the run closes something else
        code = _SOURCE_TEXT.sub(b"", src[scanned:m.start()])
        depth += code.count(b"{") - code.count(b"}")
        scanned = m.start()
        if depth == 0:
            yield m.start(1), m.end(1)
        depth += body.count(b"{") - body.count(b"}")
        scanned = m.end()


def _matching_paren(buf: bytes, open_at: int) -> int:
    depth = 0
    for i in range(open_at, min(len(buf), open_at + 4096)):
        c = buf[i]
        if c == 40:
            depth += 1
        elif c == 41:
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


class Preprocessed(NamedTuple):
    text: bytes                               # what tree-sitter parses
    qualifier_macros: dict[str, bytes]        # blanked qualifier macros: name -> expansion
    shifts: tuple[tuple[int, int, int], ...]  # offset shifts of expanded macros (Program.shifts)
    tables: tuple[tuple[int, int], ...]       # blanked number tables (offsets in `text`): not parsed


def preprocess(src: bytes) -> Preprocessed:
    """Blank tokens that break tree-sitter, keeping offsets (except where a function-like macro is
    expanded: `shifts`). Qualifier macros are returned, so a kernel hidden behind
    `#define KERNEL __global__` can still be recognised; file-scope number tables are blanked
    and left out of the parse."""
    buf = bytearray(src)
    tables = list(_file_scope_tables(src)) if len(src) > _TABLE_MIN_BYTES else []
    for start, end in tables:
        buf[start:end] = src[start:end].translate(_TO_SPACE)
    emptied = _blank_attributes(src, buf)
    for m in (_SFINAE_POINTER.finditer(src) if b"enable_if" in src else ()):
        buf[m.start(1)] = 32
    if b"LAUNCH_BOUNDS" in src:
        _launch_bounds_macros(src, buf)
    if b"__launch_bounds__" in buf:
        for m in (_directives(_GUARDED_BOUNDS, bytes(buf)) if b"endif" in src else ()):
            _blank(buf, m.start(1), m.end(1))
            _blank(buf, m.start(2), m.end(2))
    for m in (_NAMESPACE_MACRO.finditer(src) if b"NAMESPACE" in src else ()):
        _blank(buf, m.start(), m.end())
    # before the lone macros: `FOO_PRAGMA_UNROLL` alone on a line is blanked, not ended with `;`
    for m in (_PRAGMA_MACRO.finditer(src) if b"PRAGMA" in src else ()):
        g = 1 if m.group(1) else 2
        if not _in_directive(src, m.start(g)):    # `#define FOO_PRAGMA_UNROLL ...` keeps its name
            _blank(buf, m.start(g), m.end(g))
    for m in _LONE_MACRO.finditer(src):
        _end_statement_macro(src, buf, m)
    for m in (_MACRO_BEFORE_TEMPLATE.finditer(src) if b"template" in src else ()):
        _blank(buf, m.start(1), m.end(1))
    for m in (_SPACED_LAUNCH.finditer(src) if b"<< <" in src else ()):
        # `k << < grid, block >> > (...)` (zfp): nvcc reads the chevrons apart; the grammar does not
        for g, chevrons in ((1, b"<<<"), (2, b">>>")):
            buf[m.start(g):m.end(g)] = chevrons + b" " * (m.end(g) - m.start(g) - 3)
    for m in (_BRACED_LAUNCH.finditer(src) if b"<<<" in src and b"{" in src else ()):
        # `k<<<grid, {bx, by, 1}>>>`: a braced dim3 the grammar cannot read there; in parentheses it
        # is a comma expression, which Builder._dims reads as the dim3 it stands for
        buf[m.start(1)] = 40
        buf[m.end(1) - 1] = 41
    for m in (_directives(_PRAGMA_UNROLL, src) if b"pragma" in src else ()):
        _blank(buf, m.start(), m.end())
    qualifier_macros: dict[str, bytes] = {}
    values: set[bytes] = set()      # names the file defines as something else (`#define HASHES_PER_KERNEL 128UL`)
    for m in (_directives(_DEFINE, src) if b"define" in src else ()):
        words = m.group(2).split()
        if words and all(w in _QUALIFIERS for w in words):
            qualifier_macros[m.group(1).decode()] = m.group(2).strip()
        elif words:
            values.add(m.group(1))
    names = set(qualifier_macros)
    if names:
        pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(n.encode()) for n in names) + rb")\b")
        for m in pattern.finditer(src):
            if _in_directive(src, m.start()):
                continue  # the #define itself
            _blank(buf, m.start(), m.end())
    for m in (_word_starts(_QUALIFIER_SUFFIX, src) if _QUALIFIER_TAIL.search(src) else ()):
        if _in_directive(src, m.start()) or m.group(0) in values:
            continue
        if m.group(0).decode() not in qualifier_macros:
            qualifier_macros.setdefault(m.group(0).decode(), b"")
        _blank(buf, m.start(), m.end())
    shifts: tuple[tuple[int, int, int], ...] = ()
    if emptied:
        _blank_macro_uses(buf, emptied)
    if b"define" in src or b"KERNEL_LOOP" in src or b"GET_THREAD_ID" in src:
        buf, shifts = _expand_macros(bytes(buf))
        if shifts and tables:
            tables = [(_shifted(shifts, a), _shifted(shifts, b)) for a, b in tables]
    if not buf.endswith(b"\n"):
        buf += b"\n"  # a final preprocessor line without a newline sets has_error
    return Preprocessed(bytes(buf), qualifier_macros, shifts, tuple(tables))


def _blank_attributes(src: bytes, buf: bytearray) -> set[bytes]:
    """Blank the attributes of `_BLANK_CALLS` (with their arguments), `_BLANK_WORDS` and C++'s
    `[[...]]` in buf (a copy of src); the names of the `#define`s whose bodies that left empty."""
    emptied: set[bytes] = set()
    # cheap substring tests first: most files have none of these, and the regexes cost more
    for m in (_BLANK_CALLS.finditer(src) if b"__align__" in src or b"__maxnreg__" in src or b"_Pragma" in src
              or b"__declspec" in src or b"__attribute__" in src or b"__launch_bounds_ex__" in src
              or b"__cluster_dims__" in src else ()):
        end = _matching_paren(src, m.end() - 1)
        if end > 0:
            _blank(buf, m.start(), end)
            _end_define(src, buf, m.start(), end, emptied)
    for m in (_BLANK_WORDS.finditer(src) if b"__no_cluster__" in src else ()):
        _blank(buf, m.start(), m.end())
        _end_define(src, buf, m.start(), m.end(), emptied)
    for m in (_STD_ATTRIBUTE.finditer(src) if b"[[" in src else ()):
        _blank(buf, m.start(), m.end())
    return emptied


# a #define's line: its name, and its parameters if it has them
_DEFINE_HEAD = re.compile(rb"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\([^()\n]*\))?")


def _end_define(src: bytes, buf: bytearray, start: int, end: int, emptied: set[bytes]) -> None:
    """A `#define` whose body was blanked to its line's end reads, in the grammar, as one whose body
    is the next line (a kernel's first line: the kernel is lost): a `/**/` at the blank's end keeps
    the body on its own line. A body left empty adds the name to `emptied`."""
    nl = src.find(b"\n", end)
    nl = len(src) if nl < 0 else nl
    if end - start < 4 or src[end:nl].strip():
        return
    head = _DEFINE_HEAD.match(src, src.rfind(b"\n", 0, start) + 1)
    if head is None or head.end() > start:
        return
    buf[end - 4:end] = b"/**/"
    if not bytes(buf[head.end():end - 4]).strip():
        emptied.add(head.group(1))


def _blank_macro_uses(buf: bytearray, names: set[bytes]) -> None:
    """`#define CLUSTER(x, y, z) __cluster_dims__(x, y, z)`, `#define UNROLL _Pragma("unroll")`: with
    the attribute blanked the macro stands for nothing, and so do its uses, which the grammar cannot
    read before a kernel's name or a loop. Blanked where every definition of the name is empty (or
    the `/**/` of _end_define); never a reserved name (`#define __device__` for a host compiler)."""
    text = bytes(buf)
    for name in names:
        if name.startswith(b"__"):
            continue
        function_like = set()
        for d in _directives(re.compile(rb"^[ \t]*#[ \t]*define[ \t]+" + re.escape(name) + rb"\b", re.M), text):
            head = _DEFINE_HEAD.match(text, d.start())
            nl = text.find(b"\n", head.end())
            if text[head.end():len(text) if nl < 0 else nl].strip() not in (b"", b"/**/"):
                break
            function_like.add(head.group(2) is not None)
        else:
            if len(function_like) != 1:
                continue
            call = function_like.pop()
            for m in re.finditer(rb"\b" + re.escape(name) + (rb"\s*\(" if call else rb"\b"), text):
                if _in_directive(text, m.start()):
                    continue
                end = _matching_paren(text, m.end() - 1) if call else m.end()
                if end > 0:
                    _blank(buf, m.start(), end)


def _end_statement_macro(src: bytes, buf: bytearray, m: re.Match) -> None:
    """`    NAME` -> `   NAME;` (the name one column left, so offsets keep) where the line before
    ends a statement or opens a block, the next line starts one (not `(...)` continuing a call, nor
    an operator continuing an expression), and the file does not define NAME."""
    start, end = m.start(1), m.end(1)
    before = src[max(0, m.start() - 400):m.start()].rstrip()
    after = src[m.end():m.end() + 400].lstrip()
    if not before or before[-1:] not in (b";", b"{", b"}") or not after or not (after[:1].isalpha() or after[:1] in b"_{}#/"):
        return
    if re.search(rb"^[ \t]*#[ \t]*define[ \t]+" + m.group(1) + rb"\b", src, re.M) or buf[start - 1:end] != src[start - 1:end]:
        return
    buf[start - 1:end] = m.group(1) + b";"


def _comma_parts(node) -> list:
    """The operands of a parenthesized comma expression, `(a, b, c)` -> [a, b, c]; [] for other nodes."""
    inner = code_children(node)
    if len(inner) != 1 or inner[0].type != "comma_expression":
        return []
    return _comma_operands(inner[0])


def _comma_operands(e) -> list:
    """The operands of a comma expression, `a, b, c` -> [a, b, c]; [e] for another expression."""
    parts = []
    while e is not None and e.type == "comma_expression":
        parts.append(e.child_by_field_id(FIELD.left))
        e = e.child_by_field_id(FIELD.right)
    return parts + [e]


def _in_directive(src: bytes, at: int) -> bool:
    """Whether offset `at` is on a preprocessor line after its `#` (a #define's own name or body)."""
    line_start = src.rfind(b"\n", 0, at) + 1
    return re.match(rb"[ \t]*#", src[line_start:at]) is not None


def _launch_bounds_macros(src: bytes, buf: bytearray) -> None:
    """`C10_LAUNCH_BOUNDS_2(256, 4)` -> `__launch_bounds__  (256, 4)` in place (the name padded with
    spaces to its length); a name too short for that, or one with no arguments, is blanked with
    its arguments (the kernel is still found, without its bound). Definitions are left alone."""
    for m in _word_starts(_LAUNCH_BOUNDS_MACRO, src):
        if _in_directive(src, m.start()):
            continue
        paren = m.end()
        while paren < len(src) and src[paren] in b" \t":
            paren += 1
        called = paren < len(src) and src[paren] == 40
        if called and m.end() - m.start() >= len(_LAUNCH_BOUNDS):
            buf[m.start():m.end()] = _LAUNCH_BOUNDS + b" " * (m.end() - m.start() - len(_LAUNCH_BOUNDS))
            continue
        end = _matching_paren(src, paren) if called else m.end()
        _blank(buf, m.start(), end if end > 0 else m.end())


def _original_offset(shifts: tuple[tuple[int, int, int], ...], offset: int) -> int:
    """An offset of the text after macro expansion in the text before it."""
    i = bisect.bisect_right(shifts, (offset, math.inf))
    return offset - shifts[i - 1][1] if i else offset


def _shifted(shifts: tuple[tuple[int, int, int], ...], offset: int) -> int:
    """An offset of the text before macro expansion in the text after it (the inverse of
    Program.original_offset)."""
    delta = 0
    for end, d, _start in shifts:
        if end - d > offset:
            break
        delta = d
    return offset + delta


def _parse_tree(text: bytes, tables: tuple[tuple[int, int], ...]):
    """tree-sitter's tree of the text; the blanked tables' bytes are left out of its included
    ranges, which gives the same tree (a table's bytes, blank, would still be lexed one by one).
    A file with tables gets a parser of its own: the shared one keeps the whole-file range."""
    if not tables:
        return _get_parser().parse(text)
    import tree_sitter

    def point(offset: int):
        return tree_sitter.Point(text.count(b"\n", 0, offset), offset - (text.rfind(b"\n", 0, offset) + 1))

    ranges, pos = [], 0
    for start, end in tables:
        ranges.append(tree_sitter.Range(point(pos), point(start), pos, start))
        pos = end
    ranges.append(tree_sitter.Range(point(pos), point(len(text)), pos, len(text)))
    own = parser()
    own.included_ranges = ranges
    return own.parse(text)


# `n / 256`, `dimsB.x / threads.x`, `t.size(0) / BLOCK`: a grid dimension that rounds down
_FLOOR_DIVISION = re.compile(r"\(?\s*[A-Za-z_][\w.\->\[\]()]*\s*/\s*[A-Za-z_0-9][\w.\->\[\]]*\s*\)?")
# the template parameters of a host function's body, which has none: the walk of _Builder.build marks
# such a body with this object, and walks of it only what launches need (_Builder._inner)
_HOST_BODY: dict = {}
# the nodes whose declarations are at file scope
_FILE_SCOPE = frozenset(("translation_unit", "namespace_definition", "declaration_list", "linkage_specification",
                         "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif"))
# what _Builder.build reads in a host function's body whatever it holds
_HOST_KEEP = frozenset(("declaration", "preproc_def", "type_definition", "alias_declaration"))
# an assignment's target (`x =`, `x <<= `...; not `==`), as a whole identifier not after `.` or `->`
# (assignment_counts finds the same targets without a regex)
_ASSIGNING = rb"\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)"      # what follows an assigned name
ASSIGNED = re.compile(rb"(?<![\w.>])([A-Za-z_]\w*)" + _ASSIGNING)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
# a member assigned (`grid.x = (n + 255) / 256;`, `block.y *= 2`) from its `.` on (a literal first:
# a scan from each word's start cost ~0.2 ms a file with host code): group 1 the member; the name
# before the `.` is read back from there (_Builder._members_set)
_MEMBER_ASSIGNED = re.compile(rb"\.[ \t]*([xyz])" + _ASSIGNING)
_SPACE_BYTES = frozenset(b" \t\n\r\f\v")
_OP_BYTES = frozenset(b"-+*/%&|^")


def _word_before(src: bytes, at: int) -> tuple[int, int]:
    """(start, end) of the name that ends at `at`, spaces between skipped; start == end where none
    (or a number ends there)."""
    end = at
    while end > 0 and src[end - 1] in _SPACE_BYTES:
        end -= 1
    start = end
    while start > 0 and src[start - 1] in _WORD_BYTES:
        start -= 1
    return (start, end) if start < end and not 48 <= src[start] <= 57 else (end, end)


def _word_after(src: bytes, at: int) -> bytes:
    """The name that starts at `at`, spaces before it skipped; b"" where none (or a number starts there)."""
    n = len(src)
    while at < n and src[at] in _SPACE_BYTES:
        at += 1
    end = at
    while end < n and src[end] in _WORD_BYTES:
        end += 1
    return src[at:end] if end > at and not 48 <= src[at] <= 57 else b""


def assignment_counts(src: bytes) -> dict[bytes, int]:
    """Each name's count of ASSIGNED's matches in `src`, found from the `=` signs back (a regex tries
    every position of the text: ~20x slower on a file with host code)."""
    out: dict[bytes, int] = {}
    n = len(src)
    i = src.find(b"=")
    while i >= 0:
        if i + 1 < n and src[i + 1] == 61:        # `==`: the next `=` is not an assignment either
            i = src.find(b"=", i + 2)
            continue
        j = i
        if j > 0 and src[j - 1] in _OP_BYTES:
            j -= 1
        elif j > 1 and src[j - 2:j] in (b"<<", b">>"):
            j -= 2
        start, end = _word_before(src, j)
        if start < end and (start == 0 or src[start - 1] not in (46, 62)):    # not `.x` nor `->x`
            name = src[start:end]
            out[name] = out.get(name, 0) + 1
        i = src.find(b"=", i + 1)
    return out


def incremented(src: bytes) -> dict[bytes, int]:
    """The names the text steps with `++` or `--`, before or after the name (`k++`, `--n`), which
    assignment_counts does not count: name -> the offset of its first step."""
    out: dict[bytes, int] = {}
    n = len(src)
    for op in (b"++", b"--"):
        i = src.find(op)
        while i >= 0:
            start, end = _word_before(src, i)
            name = src[start:end] if start < end else _word_after(src, i + 2)      # k++, else ++k
            if name and i < out.get(name, n):
                out[name] = i
            i = src.find(op, i + 2)
    return out


def address_taken(src: bytes) -> set[bytes]:
    """The names the text takes the address of (`&size`, `& n`): a unary `&`, not `&&` nor `a & b`
    (after a name, a number, `)` or `]` it is a binary and)."""
    out: set[bytes] = set()
    n = len(src)
    i = src.find(b"&")
    while i >= 0:
        if i + 1 < n and src[i + 1] == 38:        # `&&`
            i = src.find(b"&", i + 2)
            continue
        j = i
        while j > 0 and src[j - 1] in _SPACE_BYTES:
            j -= 1
        if j == 0 or (src[j - 1] not in _WORD_BYTES and src[j - 1] not in b")]&"):
            name = _word_after(src, i + 1)
            if name:
                out.add(name)
        i = src.find(b"&", i + 1)
    return out


_FUNC_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)]*)\)[ \t]*((?:[^\n]*\\\n)*[^\n]*)$", re.M)


_OBJECT_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+((?:[^\n]*\\\n)*[^\n]*)$", re.M)
_GEOMETRY = re.compile(rb"\b(?:threadIdx|blockIdx|blockDim|gridDim|warpSize)\b")
_STATEMENT_START = re.compile(rb"(for|while|if)\s*\(")
# an object-like macro for a barrier (`#define SYNC __syncthreads();`): expanded as a statement
_BARRIER_BODY = re.compile(rb"^(?:__syncthreads(?:_count|_and|_or)?|__syncwarp)[ \t]*\([^;]*\)[ \t]*;?$")
_NOT_EXPRESSION = re.compile(rb"^(?:do|return|switch|else|case|goto|break|continue)\b|[;{}#]|^$")
_MACRO_DEPTH = 8            # nested expansions of one invocation (the preprocessor's own limit is none)
_MACRO_BODY_MAX = 512       # bytes: longer bodies are not expression macros worth inlining
# a macro that is one inline-PTX statement (`#define HMMA16816(d0, d1, ...) asm volatile("mma.sync..." : ...)`):
# expanded, the walker sees the instruction (tensor-core products, ldmatrix)
_ASM_BODY = re.compile(rb"(?:asm|__asm__)\s*(?:volatile\b|__volatile__\b)?\s*\(")


# Grid-stride loop macros that frameworks' headers define (Caffe's CUDA_KERNEL_LOOP, copied into
# mmcv, detectron2, PyTorch and most code descended from them): the header is seldom beside the
# file, and without it every index in the loop is unknown. Used where the file does not define them.
def _grid_stride(index_type: bytes, i: bytes, n: bytes, axis: bytes) -> bytes:
    return b"for (%s %s = blockIdx.%s * blockDim.%s + threadIdx.%s; %s < (%s); %s += blockDim.%s * gridDim.%s)" % (
        index_type, i, axis, axis, axis, i, n, i, axis, axis)


_HEADER_LOOPS: dict[bytes, tuple[list[bytes], bytes, bool]] = {
    b"CUDA_KERNEL_LOOP": ([b"i", b"n"], _grid_stride(b"int", b"i", b"n", b"x"), True),
    b"CUDA_1D_KERNEL_LOOP": ([b"i", b"n"], _grid_stride(b"int", b"i", b"n", b"x"), True),
    b"CUDA_KERNEL_LOOP_TYPE": ([b"i", b"n", b"index_type"], _grid_stride(b"index_type", b"i", b"n", b"x"), True),
    b"CUDA_2D_KERNEL_LOOP": ([b"i", b"n", b"j", b"m"],
                             _grid_stride(b"size_t", b"i", b"n", b"x") + b" " + _grid_stride(b"size_t", b"j", b"m", b"y"), True),
}
# A thread-index statement of NeRF codes' headers (nerfacc's and Plenoxels' helpers_cuda.h): the
# index declared and the threads past the end returned; without it the index is a name of 4096.
_HEADER_STATEMENTS: dict[bytes, tuple[list[bytes], bytes, bool]] = {
    b"CUDA_GET_THREAD_ID": ([b"tid", b"Q"], b"const int tid = blockIdx.x * blockDim.x + threadIdx.x; "
                                            b"if (tid >= (Q)) return", True),
}


def _function_macros(src: bytes) -> dict[bytes, tuple[list[bytes], bytes, bool]]:
    """Function-like macros defined in the file that can be expanded in place: statement headers
    (`#define KERNEL_LOOP(i, n) for (...)`) and expressions (`#define IDX(r, c, ld) ((r) * (ld) + (c))`).
    name -> (parameters, body, whether it is a statement header). A name defined twice with
    different bodies (under `#if`/`#else`) is left alone: which one holds is not known here.
    The headers' grid-stride loop macros (_HEADER_LOOPS) are there too where the file uses one
    it does not define."""
    macros: dict[bytes, tuple[list[bytes], bytes, bool]] = {}
    if b"KERNEL_LOOP" in src or b"GET_THREAD_ID" in src:
        for name, entry in (*_HEADER_LOOPS.items(), *_HEADER_STATEMENTS.items()):
            if re.search(rb"\b" + name + rb"[ \t]*\(", src) and not re.search(rb"#[ \t]*define[ \t]+" + name + rb"\b", src):
                macros[name] = entry
    ambiguous = set()
    for m in _directives(_FUNC_MACRO, src):
        name = m.group(1)
        params = [p.strip() for p in m.group(2).split(b",") if p.strip()]
        body = _macro_body(m.group(3))
        if params and params[-1] == b"...":     # variadic: the rest of the arguments as __VA_ARGS__
            if b"##" in body:
                continue    # `, ##__VA_ARGS__`: GNU's comma pasting
            params[-1] = b"__VA_ARGS__"
        if any(not re.fullmatch(rb"[A-Za-z_]\w*", p_) for p_ in params):
            continue    # GNU's `name...`, or malformed
        if _STATEMENT_START.match(body):
            entry = (params, body, True)
        elif b"<<<" in body and b"#" not in body and len(body) <= 4 * _MACRO_BODY_MAX and _matching_parens(body) \
                and body.count(b"{") == body.count(b"}"):
            # a launch behind a macro (`#define LAUNCH(T, NT) { k<T, NT><<<grid, block>>>(...); }`, used in
            # a host function that declares grid and block): expanded in place, it is a launch site
            entry = (params, body, True)
        elif len(body) <= _MACRO_BODY_MAX and not _NOT_EXPRESSION.search(body) and _matching_parens(body):
            entry = (params, body, False)
        elif _ASM_BODY.match(body) and len(body) <= 4 * _MACRO_BODY_MAX and _matching_paren(body, body.index(b"(")) == len(body):
            entry = (params, body, False)
        else:
            continue
        if name in macros and macros[name][1] != body:
            ambiguous.add(name)
        macros[name] = entry
    for name in ambiguous:
        del macros[name]
    return macros


def _macro_body(raw: bytes) -> bytes:
    """A #define's body as one line: continuation lines joined, comments dropped."""
    body = raw.replace(b"\\\n", b" ").strip()
    if b"//" in body or b"/*" in body:
        body = re.sub(rb"/\*.*?\*/|//.*", b" ", body).strip()
    return body


def _object_macros(src: bytes, skip) -> dict[bytes, bytes]:
    """Object-like macros defined in the file whose body is an expression of the thread geometry
    (`#define WARPS (blockDim.x / 32)`, `#define TID (blockIdx.x * blockDim.x + threadIdx.x)`):
    no constant, so without expansion a use is an unknown name (taken for a parameter of 4096);
    or a barrier (`#define SYNC __syncthreads()`), which unexpanded orders nothing.
    name -> the text a use is replaced by (an expression parenthesized, a barrier ending in `;`).
    Names in `skip` (function-like macros) and names defined twice are left alone."""
    macros: dict[bytes, bytes] = {}
    ambiguous = set()
    for m in _directives(_OBJECT_MACRO, src):
        name = m.group(1)
        body = _macro_body(m.group(2))
        if _BARRIER_BODY.match(body) and name not in skip:
            body = body.rstrip(b"; \t") + b";"
        elif name in skip or not _GEOMETRY.search(body) or len(body) > _MACRO_BODY_MAX or \
                _NOT_EXPRESSION.search(body) or not _matching_parens(body):
            continue
        else:
            body = b"(" + body + b")"
        if name in macros and macros[name] != body:
            ambiguous.add(name)
        macros[name] = body
    for name in ambiguous:
        del macros[name]
    return macros


def _matching_parens(text: bytes) -> bool:
    depth = 0
    for c in text:
        if c == 40:
            depth += 1
        elif c == 41:
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _substitute(body: bytes, params: list[bytes], args: list[bytes]) -> bytes:
    """The body with each parameter replaced by its argument, all at once (one after another, an
    argument that names a later parameter would be replaced again)."""
    if not params:
        return body
    table = dict(zip(params, args))
    pattern = re.compile(rb"\b(?:" + b"|".join(re.escape(p_) for p_ in params) + rb")\b")
    return pattern.sub(lambda m: table[m.group(0)], body)


def _expand_macros(src: bytes) -> tuple[bytes, tuple[tuple[int, int, int], ...]]:
    """Expand the function-like macros defined in the file (`_function_macros`) at their uses,
    and the object-like ones of the thread geometry (`_object_macros`: `TID`, `WARPS_PER_BLOCK`).

    A statement header's invocation (`KERNEL_LOOP(i, n) { ... }`) is no C the grammar knows; an
    expression macro's (`out[IDX(x, y, n)]`) is a call of an unknown function to it, which leaves
    the index unknown. Each expansion is put in the invocation's place on its own line (one whose
    arguments span lines, on its first line, the others left blank), so line numbers stay exact; only
    columns after it on that line move, and the byte offsets after it: returned with the text as
    (end of the expansion in the new text, new offset minus old offset from there on, start of the
    expansion in the new text). Macros in
    an expansion are expanded too (not the one being expanded: the preprocessor's rule).
    """
    macros = _function_macros(src)
    objects = _object_macros(src, macros)
    # only in a file that uses the thread geometry; asked last: _GEOMETRY, led by \b, tries every
    # byte (~45 us on a 1 KB file), and a body of the geometry (parenthesized) says it is used
    if objects and all(body.endswith(b";") for body in objects.values()) and not _GEOMETRY.search(src):
        objects = {}
    if not macros and not objects:
        return src, ()
    # group f: a function-like macro's invocation; group o: an object-like one's use
    names = [rb"\b(?P<f>" + b"|".join(re.escape(n) for n in macros) + rb")[ \t]*\("] if macros else []
    if objects:
        names.append(rb"\b(?P<o>" + b"|".join(re.escape(n) for n in objects) + rb")\b(?![ \t]*\()")
    object_use = re.compile(names[-1]) if objects else None
    pattern = re.compile(b"|".join(names))
    out = bytearray()
    shifts = []
    pos = 0
    for m in pattern.finditer(src):
        if m.start() < pos:
            continue
        line_start = src.rfind(b"\n", 0, m.start()) + 1
        before = src[line_start:m.start()]
        if before.lstrip(b" \t").startswith(b"#"):
            continue    # a directive: a #define's own name, a macro used in another's body
        if m.lastgroup == "o":
            # an object-like macro of the thread geometry (or a barrier): its text in its place
            out += src[pos:m.start()]
            start = len(out)
            out += objects[m.group("o")]
            pos = m.end()
            shifts.append((len(out), len(out) - pos, start))
            continue
        params, _, statement = macros[m.group(1)]
        if statement and before.strip(b" \t"):
            continue    # a statement header only at the start of its line
        expansion = _expansion(src, m, macros, (m.group(1),), 0)
        if expansion is None:
            continue
        text, end = expansion
        if object_use is not None:      # `IDX(TID, w)`: the geometry macros in its arguments and body
            text = object_use.sub(lambda u: objects[u.group("o")], text)
        lines = src.count(b"\n", m.start(), end)
        if lines:   # an invocation over lines: its expansion on the first, the others blank
            text += b"\n" * lines
        out += src[pos:m.start()]
        start = len(out)
        out += text
        pos = end
        shifts.append((len(out), len(out) - pos, start))
    out += src[pos:]
    return bytes(out), tuple(shifts)


def _invocations(names) -> re.Pattern:
    """A pattern of a use of one of these macros: the name and its opening parenthesis (group 1: the name)."""
    return re.compile(rb"\b(" + b"|".join(re.escape(n) for n in names) + rb")[ \t]*\(")


def _expansion(src: bytes, m: re.Match, macros: dict, active: tuple, depth: int) -> tuple[bytes, int] | None:
    """(the expansion of the invocation `m` matched in `src`, the offset past it), or None where it
    is not expanded (a wrong argument count, nesting too deep, a nested invocation over lines).
    The arguments of an invocation over lines are read as one line (comments dropped): the caller
    puts the expansion on the invocation's first line and leaves its other lines blank."""
    end = _matching_paren(src, m.end() - 1)
    if end < 0 or depth >= _MACRO_DEPTH:
        return None
    inside = src[m.end():end - 1]
    if b"\n" in inside:
        if depth:
            return None
        inside = _macro_body(inside).replace(b"\n", b" ")
    params, body, _ = macros[m.group(1)]
    args = _split_args(inside)
    if params and params[-1] == b"__VA_ARGS__" and len(args) >= len(params) - 1:
        fixed = len(params) - 1
        args = args[:fixed] + [b", ".join(args[fixed:])]
    if len(args) != len(params):
        return None
    text = _substitute(body, params, args)
    inner = {n: v for n, v in macros.items() if n not in active and not v[2]}
    if inner and any(n in text for n in inner):
        parts, at = [], 0
        for m2 in _invocations(inner).finditer(text):
            if m2.start() < at:
                continue
            got = _expansion(text, m2, inner, active + (m2.group(1),), depth + 1)
            if got is None:
                continue
            parts.append(text[at:m2.start()] + got[0])
            at = got[1]
        text = b"".join(parts) + text[at:]
    return text, end


def _split_args(text: bytes) -> list[bytes]:
    args, depth, cur = [], 0, bytearray()
    for ch in text:
        if ch in b"([{":
            depth += 1
        elif ch in b")]}":
            depth -= 1
        if ch == 44 and depth == 0:
            args.append(bytes(cur).strip())
            cur = bytearray()
        else:
            cur.append(ch)
    args.append(bytes(cur).strip())
    return [a for a in args if a] if any(args) else []


# ------------------------------------------------------------------ constants

_SIZEOF = re.compile(r"\bsizeof\s*\(\s*([A-Za-z_][\w\s:]*?)\s*(\*?)\s*\)")


def _sizeof_value(m: re.Match) -> str:
    """`sizeof(float)` -> `4` (a pointer 8); another type stays as written (and the expression
    has no value)."""
    if m.group(2):
        return "8"
    size = type_size(m.group(1))
    return str(size) if size is not None else m.group(0)


# a number as C's preprocessor reads one (`0x1Fu`, `1.5e-3f`, `.5f`, `10ull`), not part of a name
_NUMBER = re.compile(r"(?<![\w.])\.?[0-9](?:[eEpP][-+]|[\w.])*")


def _unsuffixed(m: re.Match) -> str:
    """A number without its type suffix (`u`, `l`, `ull`; `f` unless it is a hex digit), as Python reads it."""
    t = m.group(0)
    bare = t.rstrip("uUlL")
    if bare != t or t[:2] in ("0x", "0X"):
        return bare
    return t[:-1] if t[-1] in "fF" else t


def count(v, lo: int = 0, hi: int = 1 << 48) -> int | None:
    """A constant's value as a size or count (lo..hi), or None: code under edit writes `1e309`,
    `1L << 63` or `-1` where a size goes, and those are no size a model can use."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return int(v) if lo <= v <= hi else None


def eval_constant(text: str, known: dict[str, int | float]) -> int | float | None:
    """Value of a C constant expression over known names, or None."""
    text = text.strip()
    if not text or len(text) > 200:
        return None
    if text.isascii():
        # the common cases, as the full path below would evaluate them, without ast.parse
        if text.isdigit() and text[0] != "0":
            return int(text)
        if text.isidentifier() and not keyword.iskeyword(text) and text not in ("True", "False", "None"):
            return known[text] if text in known else None
    if "sizeof" in text:   # `n * sizeof(float)`: a launch's shared bytes
        text = _SIZEOF.sub(_sizeof_value, text)
    text = _NUMBER.sub(_unsuffixed, text)
    if "&" in text or "|" in text:
        text = text.replace("&&", " and ").replace("||", " or ")
    tree = _parse_constant(text)
    if tree is None:
        return None
    try:
        return _eval_node(tree.body, known)
    except (ValueError, ZeroDivisionError, TypeError, OverflowError, RecursionError):
        return None


def launch_bounds(exprs: tuple[str, ...], known: dict[str, int | float]) -> LaunchBounds:
    """`__launch_bounds__(exprs...)` evaluated over known names (a template kernel's: its
    arguments; unknown ones leave that bound None)."""
    nums = [count(eval_constant(e, known), 1, 1 << 31) for e in exprs]
    return LaunchBounds(nums[0] if nums else None, nums[1] if len(nums) > 1 else None, exprs)


def bound_threads(program: "Program", kernel: Function, template_args=()) -> int | None:
    """The most threads a block of `kernel` may have by its `__launch_bounds__` (a launch of more
    fails), where that is a constant: a template's over its arguments `template_args` (texts, in
    order; its defaults for the rest). None where it has no bounds or their value is unknown."""
    lb = kernel.launch_bounds
    if lb is None or not kernel.template_params:
        return lb.max_threads if lb is not None else None
    known = {**program.constants, **{k: v for k, v in kernel.template_params.items() if v is not None}}
    for name, text in zip(kernel.template_params, template_args):
        v = eval_constant(text, program.constants)
        if isinstance(v, (int, float)):
            known[name] = int(v)
        else:
            known.pop(name, None)     # a type, or a value we cannot read: not the default's
    return launch_bounds(lb.exprs, known).max_threads if lb.exprs else None


# the casts a constant expression may hold, dropped before it is read: `(int)x`, `(std::size_t)x`;
# `std::size_t(32)`, `int(x)`, `static_cast<int>(x)` (the parenthesized operand stays)
_ARITHMETIC_TYPE = r"(?:std::)?(?:unsigned\s+)?(?:int|long|size_t|float|double|unsigned|u?int(?:8|16|32|64)_t)"
_C_CAST = re.compile(r"\(\s*" + _ARITHMETIC_TYPE + r"\s*\)")
_FUNCTIONAL_CAST = re.compile(r"(?<![\w:.])(?:static_cast\s*<\s*" + _ARITHMETIC_TYPE + r"\s*>|" + _ARITHMETIC_TYPE + r")\s*(?=\()")


@lru_cache(maxsize=4096)
def _parse_constant(text: str):
    """The Python AST of a C constant expression (casts dropped), or None; only read, never changed."""
    if "(" in text:
        text = _FUNCTIONAL_CAST.sub("", _C_CAST.sub("", text))
    try:
        with warnings.catch_warnings():
            # text like `1if` (code under edit) makes Python warn on stderr, "invalid decimal literal"
            warnings.simplefilter("ignore", SyntaxWarning)
            return ast.parse(text, mode="eval")
    except SyntaxError:
        return None


def _eval_node(node, known):
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in known:
            return known[node.id]
        raise ValueError(node.id)
    if isinstance(node, ast.UnaryOp):
        v = _eval_node(node.operand, known)
        if isinstance(node.op, ast.USub):
            return -v
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Invert):
            return ~int(v)
        raise ValueError("op")
    if isinstance(node, ast.BinOp):
        a, b = _eval_node(node.left, known), _eval_node(node.right, known)
        op = type(node.op)
        if op is ast.Add:
            return a + b
        if op is ast.Sub:
            return a - b
        if op is ast.Mult:
            return a * b
        if op is ast.Div:
            if isinstance(a, int) and isinstance(b, int):
                q = abs(a) // abs(b)
                return -q if (a < 0) != (b < 0) else q
            return a / b
        if op is ast.Mod:
            return a - b * int(a / b)
        if op in (ast.LShift, ast.RShift):
            if not 0 <= b < 64:     # undefined in C; `1 << 10000000000` would not fit in memory
                raise ValueError("shift")
            return int(a) << int(b) if op is ast.LShift else int(a) >> int(b)
        if op is ast.BitAnd:
            return int(a) & int(b)
        if op is ast.BitOr:
            return int(a) | int(b)
        if op is ast.BitXor:
            return int(a) ^ int(b)
        raise ValueError("op")
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        a, b = _eval_node(node.left, known), _eval_node(node.comparators[0], known)
        op = type(node.ops[0])
        return int({ast.Lt: a < b, ast.LtE: a <= b, ast.Gt: a > b, ast.GtE: a >= b,
                    ast.Eq: a == b, ast.NotEq: a != b}[op])
    if isinstance(node, ast.IfExp):
        return _eval_node(node.body if _eval_node(node.test, known) else node.orelse, known)
    raise ValueError(type(node).__name__)


# ------------------------------------------------------------------ type sizes

SCALAR_SIZES: dict[str, int] = {
    "char": 1, "signed char": 1, "unsigned char": 1, "bool": 1, "int8_t": 1, "uint8_t": 1,
    "short": 2, "unsigned short": 2, "int16_t": 2, "uint16_t": 2, "half": 2, "__half": 2,
    "__nv_bfloat16": 2, "nv_bfloat16": 2, "bf16": 2, "at::Half": 2, "at::BFloat16": 2, "c10::Half": 2,
    "int": 4, "unsigned": 4, "unsigned int": 4, "float": 4, "int32_t": 4, "uint32_t": 4, "uint": 4,
    "long": 8, "unsigned long": 8, "long long": 8, "unsigned long long": 8, "int64_t": 8, "uint64_t": 8,
    "size_t": 8, "double": 8, "ptrdiff_t": 8,
    "half2": 4, "__half2": 4, "__nv_bfloat162": 4, "nv_bfloat162": 4,
    "char2": 2, "uchar2": 2, "char4": 4, "uchar4": 4, "short2": 4, "ushort2": 4, "short4": 8, "ushort4": 8,
    "int2": 8, "uint2": 8, "float2": 8, "int3": 12, "uint3": 12, "float3": 12,
    "int4": 16, "uint4": 16, "float4": 16, "double2": 16, "longlong2": 16, "ulonglong2": 16,
    "double4": 32, "long2": 16, "ulong2": 16,
    # the rest of CUDA's vector types (a `longlong4 strides` parameter is no struct from a header)
    "char1": 1, "uchar1": 1, "char3": 3, "uchar3": 3, "short1": 2, "ushort1": 2, "short3": 6, "ushort3": 6,
    "int1": 4, "uint1": 4, "float1": 4, "long1": 8, "ulong1": 8, "long3": 24, "ulong3": 24, "long4": 32,
    "ulong4": 32, "longlong1": 8, "ulonglong1": 8, "longlong3": 24, "ulonglong3": 24, "longlong4": 32,
    "ulonglong4": 32, "double1": 8, "double3": 24,
}
FLOAT_TYPES = {"float", "float2", "float3", "float4"}
DOUBLE_TYPES = {"double", "double2", "double4"}
# nvcuda::wmma fragment types: fragment<use, M, N, K, element type[, layout]> (the walker reads a
# variable's, the static register estimate a kernel's declarations)
WMMA_FRAGMENT = re.compile(r"fragment\s*<\s*(?:[\w:]*::)?(matrix_a|matrix_b|accumulator)\s*,\s*(\w+)\s*,\s*(\w+)\s*,"
                           r"\s*(\w+)\s*,\s*([\w:]+)")


def type_size(name: str, structs: dict[str, int] | None = None) -> int | None:
    name = " ".join(name.replace("const", " ").replace("volatile", " ").split())
    if name in SCALAR_SIZES:
        return SCALAR_SIZES[name]
    if structs and name in structs:
        return structs[name]
    return None


# ------------------------------------------------------------------ building the model

def alias_of(node, text) -> tuple[str, list[str]]:
    """(the type, the names given it) of a `using N = T;` or `typedef T N;` node (a file's or a
    kernel body's); `text(node)` is its source."""
    tnode = node.child_by_field_id(FIELD.type)
    if tnode is None:
        return "", []
    target = " ".join(text(tnode).replace("const", " ").split())
    if node.type == "alias_declaration":
        name = node.child_by_field_id(FIELD.name)
        return target, [text(name)] if name is not None else []
    return target, [text(d) for d in node.children_by_field_id(FIELD.declarator)
                    if d.type in ("type_identifier", "identifier", "primitive_type")]


def params_of(plist, text) -> tuple[Param, ...]:
    """The parameters of a parameter_list node (a function's, a lambda's); `text(node)` is its source."""
    out = []
    if plist is None:
        return ()
    for p in plist.named_children:
        kind = p.type
        if kind not in ("parameter_declaration", "optional_parameter_declaration"):
            continue
        tnode = p.child_by_field_id(FIELD.type)
        base = text(tnode) if tnode is not None else "?"
        quals = {text(c) for c in p.children if c.type == "type_qualifier"}
        decl = p.child_by_field_id(FIELD.declarator)
        ops: list[str | None] = []     # from the outside in: None a pointer, else an array's size text
        restrict = False
        while decl is not None and decl.type in ("pointer_declarator", "reference_declarator", "array_declarator",
                                                  "abstract_pointer_declarator", "parenthesized_declarator"):
            if decl.type == "parenthesized_declarator":     # `(*a)` of `float (*a)[W]`
                decl = next((c for c in decl.named_children if c.type != "comment"), None)
                continue
            if decl.type == "array_declarator":
                size = decl.child_by_field_id(FIELD.size)
                ops.append(text(size) if size is not None else "")
            elif decl.type != "reference_declarator":
                ops.append(None)
            restrict = restrict or any(text(c) in ("__restrict__", "restrict") for c in decl.children
                                       if c.type == "type_qualifier")
            if decl.type == "reference_declarator":     # `int& r`: the grammar gives its declarator no field
                decl = next((c for c in reversed(decl.named_children) if c.type != "comment"), None)
            else:
                decl = decl.child_by_field_id(FIELD.declarator)
        name = text(decl) if decl is not None else f"arg{len(out)}"
        depth, dims = _pointee(ops)
        default = p.child_by_field_id(FIELD.default_value) if kind == "optional_parameter_declaration" else None
        out.append(Param(name, base, depth, "const" in quals, restrict, dims,
                         text(default) if default is not None else None))
    return tuple(out)


def _pointee(ops: list[str | None]) -> tuple[int, tuple[str, ...]]:
    """(levels of indirection, sizes of the arrays pointed to) of a parameter's declarators read from
    the outside in (None a pointer, else an array's size). Read from the name out, an array parameter's
    first array is a pointer (`a[][W]` is `(*a)[W]`); a pointer to arrays only has their sizes, any
    other mix is counted in levels as before."""
    if len(ops) < 2:
        return len(ops), ()     # a scalar, `float* x`, `float x[]` (nearly every parameter)
    sizes = ops[-2::-1]     # from the name out, after the first (a pointer, or an array that is one)
    return (1, tuple(sizes)) if all(sizes) else (len(ops), ())


def parse(source: bytes | str, path: str = "<string>", known: "Program | None" = None,
          macros: Macros = OPEN) -> Program:
    """Parse CUDA source into a Program. Never raises on bad code; see Program.errors.

    known: a program whose constants, type aliases and structs hold before this source's first
    line (the local headers it includes: analyzer/includes.py); its own definitions win.
    macros: what the compile defines besides the file (analyzer.directives), for the
    conditional directives the file's own macros do not decide."""
    if isinstance(source, str):
        # a lone surrogate (a Python string's "\ud800") travels as its 3 bytes, shown as U+FFFD
        source = source.encode("utf-8", "surrogatepass")
    pre = preprocess(source)
    tree = _parse_tree(pre.text, pre.tables)
    builder = _Builder(pre.text, path, pre.qualifier_macros, source, pre.shifts, macros)
    if known is not None:
        builder.defines.update(dict.fromkeys(known.defines, -1))
        builder.constants.update(known.constants)
        builder.aliases.update(known.aliases)
        builder.structs.update(known.structs)
        builder.fields.update(known.fields)
    return builder.build(tree)


class _Builder:
    def __init__(self, src: bytes, path: str, qualifier_macros: dict[str, bytes], original: bytes,
                 shifts: tuple[tuple[int, int, int], ...] = (), macros: Macros = OPEN):
        self.src = src
        self.macros = macros
        self.original = original
        self.shifts = shifts
        self.has_maxnreg = b"__maxnreg__" in original
        self.has_ifs = b"#if" in src      # conditional directives (#if, #ifdef, #ifndef): rare
        # the launch APIs' words the file holds (nearly always none): looked for in its parts only then
        self.api_words = tuple(w for w in (b"cudaLaunch", b"hipLaunch") if w in src)
        self.path = path
        self.qualifier_macros = qualifier_macros
        self.constants: dict[str, int | float] = {}
        self.functions: list[Function] = []
        self.launches: list[Launch] = []
        self.instantiations: list[Instantiation] = []
        self.globals_: list[SharedArray] = []
        self.errors: list[ParseError] = []
        self.structs: dict[str, int] = {}
        self.fields: dict[str, dict[str, tuple[int, str]]] = {}
        self.aliases: dict[str, str] = {}
        self.dim3_vars: dict[str, tuple[int | None, ...]] = {}   # None: a dimension no constant decides
        self.kernel_names: set[str] = set()                     # the kernels defined so far
        # host locals that hold a kernel (`auto kern = k<128>;`, `void (*f)(float*) = &k;`): the
        # kernel's name node, and the end of the function they are local to
        self.kernel_aliases: dict[str, tuple[object, int]] = {}
        self.dim3_texts: dict[str, tuple[str, ...]] = {}          # a dim3 local's arguments as written
        # host code's local constants (`const int threads = 256;`), for the launch sites after them
        self.launch_consts: dict[str, int | float] = {}
        self.assigned: dict[bytes, int] | None = None   # names the file assigns, and how often (_assignments)
        self.addressed: set[bytes] | None = None        # names whose address the file takes (address_taken)
        self.members: dict[str, str] | None = None      # names whose .x, .y or .z the file assigns (_members_set)
        self.stepped: dict[bytes, int] | None = None    # names the file steps with ++ or --, first offset (incremented)
        self.first_pass: set[str] = set()               # launch_consts whose value is only the first one (Launch.loop_first)
        self.defines: dict[str, int] = {}                # the names the file #defines so far, at their first offsets
        self.ascii = src.decode("ascii") if src.isascii() else None   # as Program._ascii: see text

    def text(self, node) -> str:
        s = self.ascii
        if s is not None:
            return s[node.start_byte:node.end_byte]
        return self.src[node.start_byte:node.end_byte].decode("utf-8", "replace")

    def build(self, tree) -> Program:
        root = tree.root_node
        # Iterative walk: pathological nesting must not overflow Python's stack.
        stack = [(root, {}, "")]
        while stack:
            node, tparams, parent = stack.pop()     # parent: the type of the node's parent (node.parent is a search)
            if tparams is None:
                # a function body's walk ended: its local constants and dim3s go out of scope
                self.launch_consts, self.dim3_vars, self.first_pass = node
                continue
            t = node.type
            if t == "ERROR" or node.is_missing:
                self._error(node)
                if t == "ERROR":
                    stack.extend(self._inner(node, t, tparams))
                continue
            if t == "preproc_def":
                self._define(node)
            elif t == "preproc_function_def":     # defined for `#ifdef` (its value is not a constant)
                name = node.child_by_field_id(FIELD.name)
                if name is not None:
                    self.defines.setdefault(self.text(name), node.start_byte)
            elif t in DIRECTIVES:
                taken = self._condition(node)
                if taken is None:       # a value the file does not give (`-DUSE_BIG` on the command line): every branch
                    stack.extend(self._inner(node, t, tparams))
                else:   # the branch the file's own macros select; the others are not compiled
                    alt = node.child_by_field_id(FIELD.alternative)
                    if taken:
                        stack.extend(self._inner(node, t, tparams, skip=alt))
                    elif alt is not None:
                        stack.append((alt, tparams, t))
            elif t in ("type_definition", "alias_declaration"):
                self._alias(node)
            elif t == "template_declaration":
                tparams = {**tparams, **self._template_params(node)}
                stack.extend(self._inner(node, t, tparams))
            elif t == "function_definition":
                self._function(node, tparams)
                # Only launch sites (and the dim3 variables they use) are wanted inside bodies:
                # skip bodies without `<<<` or a launch API rather than walk every node of every kernel.
                body = node.child_by_field_id(FIELD.body)
                text = self.src[body.start_byte:body.end_byte] if body is not None else b""
                if b"<<<" in text or self.api_words and any(w in text for w in self.api_words):
                    stack.append(((dict(self.launch_consts), dict(self.dim3_vars), set(self.first_pass)), None, ""))
                    stack.append((body, _HOST_BODY, t))
            elif t == "declaration":
                self._declaration(node, file_scope=parent in _FILE_SCOPE)
                stack.extend(self._inner(node, t, tparams))
            elif t in ("struct_specifier", "class_specifier"):
                self._struct(node)
                stack.extend(self._inner(node, t, tparams))
            elif t == "template_instantiation":
                self._instantiation(node)
            elif t == "call_expression":
                self._maybe_launch(node)
                stack.extend(self._inner(node, t, tparams))
            else:
                if node.has_error or t in ("compound_statement", "translation_unit", "namespace_definition",
                                            "declaration_list", "linkage_specification", "preproc_if",
                                            "preproc_ifdef", "preproc_else", "preproc_elif", "expression_statement",
                                            "if_statement", "for_statement", "while_statement", "do_statement",
                                            "else_clause", "switch_statement", "case_statement", "field_declaration_list",
                                            "argument_list", "return_statement", "labeled_statement", "init_declarator",
                                            "assignment_expression", "parenthesized_expression", "binary_expression",
                                            "lambda_expression", "comma_expression", "conditional_expression",
                                            "try_statement", "catch_clause", "for_range_loop", "condition_clause"):
                    stack.extend(self._inner(node, t, tparams))
        if root.has_error:
            self._unwalked_errors(root)
        self.errors.sort(key=lambda e: (e.line, e.col))
        self.functions.sort(key=lambda f: f.line)
        self.launches.sort(key=lambda l: (l.line, l.col))
        self._launched_are_kernels()
        return Program(self.path, self.src, tree, self.functions, self.launches, self.constants,
                       self.globals_, self.errors, self.structs, self.fields, self.aliases, _ascii=self.ascii,
                       original=self.original, shifts=self.shifts, instantiations=self.instantiations,
                       defines=self.defines, macros=self.macros)

    def _launched_are_kernels(self) -> None:
        """Only a kernel can be launched (`k<<<...>>>`, cudaLaunchKernel): a function the file launches
        that reads as host code has its `__global__` behind a macro from a header (`KERNEL_ATTR void
        k(...)`), and is a kernel. Not where the file also defines a kernel of that name (an overload)."""
        launched = {l.kernel for l in self.launches}
        if not launched:
            return
        kernels = {f.name for f in self.functions if f.kind == "global"}
        for f in self.functions:
            if f.kind == "host" and f.name in launched and f.name not in kernels:
                f.kind = "global"
                f.launched_only = True

    def _inner(self, node, t: str, tparams, skip=None):
        """The children of `node` (of type `t`) to walk next, last first, each with the template
        parameters in scope and `t` (not `skip`: an `#if`'s branch not taken). In the body of a function
        that launches kernels only declarations (the launches' constants and dim3s), parse errors and
        what holds a launch matter: a test driver's loops and copies around its launches are left unwalked."""
        if skip is not None:
            return [(c, tparams, t) for c in reversed(node.children) if c != skip]
        if tparams is not _HOST_BODY:
            return [(c, tparams, t) for c in reversed(node.children)]
        src, api_words = self.src, self.api_words
        return [(c, tparams, t) for c in reversed(node.children)
                if c.type in _HOST_KEEP or c.has_error or src.find(b"<<<", c.start_byte, c.end_byte) >= 0
                or api_words and any(src.find(w, c.start_byte, c.end_byte) >= 0 for w in api_words)]

    _COMPLETE = {"function_definition", "declaration", "template_declaration", "preproc_def", "preproc_include",
                 "preproc_function_def", "preproc_call", "comment", "struct_specifier", "namespace_definition",
                 "linkage_specification", "expression_statement", "compound_statement"}

    def _error(self, node) -> None:
        if node.type == "ERROR":
            # An ERROR node often wraps well-formed definitions: report only the parts that are not.
            bad = [c for c in node.children if c.type not in self._COMPLETE or c.has_error]
            if bad and len(bad) < len(node.children):
                start, end = bad[0], bad[-1]
                (l0, c0), (l1, _) = start.start_point, end.end_point
                self._add_error(l0, c0, l1, "unparsed code")
                return
        (l0, c0), (l1, _) = node.start_point, node.end_point
        self._add_error(l0, c0, l1, f"missing {node.type}" if node.is_missing else "unparsed code")

    def _add_error(self, l0: int, c0: int, l1: int, what: str) -> None:
        if any(e.line <= l0 + 1 <= e.end_line for e in self.errors):
            return
        self.errors.append(ParseError(l0 + 1, c0 + 1, l1 + 1, what))

    # -- constants
    def _define(self, node) -> None:
        name = node.child_by_field_id(FIELD.name)
        value = node.child_by_field_id(FIELD.value)
        if name is not None:
            self.defines.setdefault(self.text(name), node.start_byte)
        if name is None or value is None:
            return
        self._define_text(self.text(name), self.text(value))

    def _condition(self, node) -> bool | None:
        """Whether the first branch of a file-scope `#if` / `#elif` / `#ifdef` / `#ifndef` is compiled, by the
        file's own macros defined so far (`#if USE_BIG` after `#define USE_BIG 1`, `#if R == 16`,
        `defined(X)`) and the compile's (`self.macros`); None where it reads anything else (a name from
        the command line, or `__CUDA_ARCH__`: file scope holds host code too)."""
        return holds(node, self.text, lookup_for(self.defines.__contains__, self.constants, self.macros, False))

    def _define_text(self, name: str, value: str) -> None:
        # tree-sitter keeps a trailing comment in the value: `#define THREADS 256 // per block`
        text = _TRAILING_COMMENT.sub("", value).strip()
        v = eval_constant(text, self.constants)
        if v is not None:
            self.constants[name] = v
        elif type_size(text, self.structs) is not None:
            self.aliases[name] = text  # #define T float4

    def _body_defines(self, body) -> None:
        """`#define`s inside a kernel's or device function's body: a macro holds from its line on
        whatever braces are around it (`#define SHMEM_COLS (TILE + 1)` above the shared tile it
        sizes). The build does not walk such bodies; a host body's are read where it does."""
        for m in _directives(_DEFINE, self.src[body.start_byte:body.end_byte]):
            name = m.group(1).decode("utf-8", "replace")
            self.defines.setdefault(name, body.start_byte + m.start())
            self._define_text(name, m.group(2).decode("utf-8", "replace"))

    def _alias(self, node) -> None:
        target, names = alias_of(node, self.text)
        for name in names:
            self.aliases[name] = target

    def _template_params(self, node) -> dict[str, int | None]:
        out: dict[str, int | None] = {}
        plist = node.child_by_field_id(FIELD.parameters)
        if plist is None:
            return out
        for p in plist.named_children:
            decl = p.child_by_field_id(FIELD.declarator)
            if p.type in ("parameter_declaration", "optional_parameter_declaration") and decl is not None:
                default = p.child_by_field_id(FIELD.default_value)
                out[self.text(decl)] = eval_constant(self.text(default), self.constants) if default is not None else None
            elif p.type in ("type_parameter_declaration", "optional_type_parameter_declaration"):
                ident = next((c for c in p.named_children if c.type in ("type_identifier", "identifier")), None)
                if ident is not None:
                    out[self.text(ident)] = None
        return out

    def _struct(self, node) -> None:
        name = node.child_by_field_id(FIELD.name)
        body = node.child_by_field_id(FIELD.body)
        if name is None or body is None:
            return
        total = 0
        offsets: dict[str, tuple[int, str]] = {}
        for f in body.named_children:
            if f.type != "field_declaration":
                continue
            ftype = f.child_by_field_id(FIELD.type)
            base_size = type_size(self.text(ftype), self.structs) if ftype is not None else None
            for d in f.children_by_field_id(FIELD.declarator):
                count = 1
                stars = 0
                while d is not None and d.type == "pointer_declarator":
                    stars += 1   # a pointer field: 8 bytes, whatever it points to
                    d = d.child_by_field_id(FIELD.declarator)
                size = 8 if stars else base_size
                if size is None:
                    return
                while d is not None and d.type == "array_declarator":
                    n = eval_constant(self.text(d.child_by_field_id(FIELD.size)), self.constants) if d.child_by_field_id(FIELD.size) else None
                    if not isinstance(n, int):
                        return
                    count *= n
                    d = d.child_by_field_id(FIELD.declarator)
                align = min(size, 16)
                total = -(-total // align) * align  # natural alignment, as the compiler lays it out
                if d is not None:
                    offsets[self.text(d)] = (total, self.text(ftype) + "*" * stars)
                total += size * count
        if total:
            self.structs[self.text(name)] = total
            self.fields[self.text(name)] = offsets

    # -- declarations: constants and memory-space arrays
    def _declaration(self, node, file_scope: bool) -> None:
        quals = self._qualifiers(node)
        type_node = node.child_by_field_id(FIELD.type)
        base = self.text(type_node) if type_node is not None else "int"
        for decl in node.children_by_field_id(FIELD.declarator):
            if base == "dim3" and decl.type == "function_declarator":
                # `dim3 block(TILE, ROWS);` parses as a function declaration (the most vexing parse)
                name = decl.child_by_field_id(FIELD.declarator)
                params = decl.child_by_field_id(FIELD.parameters)
                if name is not None and params is not None:
                    self.dim3_texts[self.text(name)] = tuple(self.text(p) for p in code_children(params))
                    vals = [count(eval_constant(self.text(p), self._launch_known()), 1, 1 << 31) for p in code_children(params)]
                    if vals and len(vals) <= 3 and any(v is not None for v in vals):
                        # None where a dimension is unknown: _dims takes only whole shapes
                        self.dim3_vars[self.text(name)] = tuple(vals) + (1,) * (3 - len(vals))
                continue
            if decl.type == "init_declarator":
                inner = decl.child_by_field_id(FIELD.declarator)
                value = decl.child_by_field_id(FIELD.value)
                if not file_scope and self.kernel_names and value is not None and inner is not None and (
                        base == "auto" or inner.type == "function_declarator"):
                    self._kernel_alias(node, inner, value)
                if inner is not None and inner.type == "identifier" and value is not None:
                    args = _dim3_arguments(value, base)
                    if args is not None:
                        self.dim3_texts[self.text(inner)] = tuple(self.text(a) for a in code_children(args))
                        dims = self._dims_from_args(args, partial=True)
                        if dims:
                            self.dim3_vars[self.text(inner)] = dims
                    elif file_scope and ("const" in quals or "constexpr" in quals):
                        v = eval_constant(self.text(value), self.constants)
                        if v is not None:
                            self.constants[self.text(inner)] = v
                    elif not file_scope and (self.src.find(b"<<<", node.end_byte) >= 0
                                             or any(self.src.find(w, node.end_byte) >= 0 for w in self.api_words)):
                        self._launch_constant(self.text(inner), value, "const" in quals or "constexpr" in quals, node)
                decl = inner
            space = "shared" if "__shared__" in quals else "constant" if "__constant__" in quals else (
                "device" if "__device__" in quals and file_scope else None)
            if space and decl is not None:
                arr = self._array(decl, base, "extern" in quals, node.start_point[0] + 1, space)
                if arr is not None and file_scope:
                    self.globals_.append(arr)

    def _launch_constant(self, name: str, value, const: bool, declaration) -> None:
        """A local of host code with a constant value (`const int threads = 256;`, or `int threads =
        256;` that nothing assigns again), for the launches that use it (`k<<<blocks, threads>>>`)."""
        v = eval_constant(self.text(value), self._launch_known())
        if v is None:
            self.launch_consts.pop(name, None)     # a later declaration of the name hides an earlier one
            return
        if not const and (not self._assigned_once(name, declaration) or self._address_taken(name)):
            # assigned again somewhere, or through a pointer (`GetSize(..., &size)`): not a constant
            self.launch_consts.pop(name, None)
            return
        self.launch_consts[name] = v
        # what a loop steps (`k++`, `++offset`) holds its first value only: so does what is computed from it
        if self._first_pass_only(self.text(value), self._stepped()):
            self.first_pass.add(name)
        else:
            self.first_pass.discard(name)

    def _assigned_once(self, name: str, declaration) -> bool:
        """Whether a local's declaration is its only assignment: in the whole file (nearly always), or
        else in its scope after it (`int threads = 128;` declared again in another function, or in
        another block of the same one, is another variable)."""
        n = self._assignments(name)
        if n <= 1:
            return n == 1
        scope = declaration.parent
        if scope is None:
            return False
        return name.encode() not in assignment_counts(self.src[declaration.end_byte:scope.end_byte])

    def _assignments(self, name: str) -> int:
        """How often the file assigns `name` (`name =`, `name +=`...; not `==`), its declaration included."""
        if not _IDENTIFIER.fullmatch(name):
            return len(re.findall(rb"(?<![\w.>])" + re.escape(name.encode()) + _ASSIGNING, self.src))
        if self.assigned is None:
            # one pass over the file for every name, instead of a scan per declaration of host code
            # (each `for (int i = 0; ...)` of a test driver cost a whole-file regex scan)
            self.assigned = assignment_counts(self.src)
        return self.assigned.get(name.encode(), 0)

    def _first_pass_only(self, text: str, stepped: dict[bytes, int]) -> bool:
        """Whether an expression names what host code steps (`stepped`: `k++`) or a value computed
        from one: its value is that of the first launch only."""
        return bool(stepped or self.first_pass) and any(
            w.encode() in stepped or w in self.first_pass for w in _IDENTIFIER.findall(text))

    def _stepped(self) -> dict[bytes, int]:
        if self.stepped is None:
            self.stepped = incremented(self.src) if b"++" in self.src or b"--" in self.src else {}
        return self.stepped

    def _address_taken(self, name: str) -> bool:
        if self.addressed is None:
            self.addressed = address_taken(self.src)
        return name.encode() in self.addressed

    def _launch_known(self) -> dict:
        return {**self.constants, **self.launch_consts} if self.launch_consts else self.constants

    def _qualifiers(self, node) -> set[str]:
        out = set()
        for c in node.children:
            if c.type in ("type_qualifier", "storage_class_specifier"):
                out.add(self.text(c))
        return out

    def _array(self, decl, base: str, extern: bool, line: int, space: str) -> SharedArray | None:
        dims: list[int | None] = []
        nodes = []
        while decl is not None and decl.type == "array_declarator":
            size = decl.child_by_field_id(FIELD.size)
            v = eval_constant(self.text(size), self.constants) if size is not None else None
            dims.append(count(v))
            nodes.append(size)
            decl = decl.child_by_field_id(FIELD.declarator)
        if decl is None or decl.type != "identifier":
            return None
        return SharedArray(self.text(decl), base, tuple(reversed(dims)), extern, line, space,
                           tuple(reversed(nodes)) if None in dims else ())

    # -- functions
    def _function(self, node, tparams: dict[str, int | None]) -> None:
        kind = "host"
        bounds = None
        children = list(node.children)
        for c in children:
            if c.type == "__global__":
                kind = "global"
            elif c.type == "__device__" and kind != "global":
                kind = "device"
            elif c.type == "launch_bounds":
                # a third argument (CUDA 12's blocks per cluster) is outside the grammar: the second
                # and its comma come as an ERROR node
                exprs = tuple(self.text(m) for n in code_children(c)
                              for m in (code_children(n) if n.type == "ERROR" else (n,)))
                bounds = launch_bounds(exprs, {**self.constants, **{k: v for k, v in tparams.items() if v is not None}})
        declarator = node.child_by_field_id(FIELD.declarator)
        while declarator is not None and declarator.type not in ("function_declarator",):
            declarator = declarator.child_by_field_id(FIELD.declarator)
        if declarator is None:
            return
        name_node = declarator.child_by_field_id(FIELD.declarator)
        name = self.text(name_node) if name_node is not None else "?"
        if kind == "host":
            kind = self._kind_from_macros(node, kind)
        params = self._params(declarator.child_by_field_id(FIELD.parameters))
        body = node.child_by_field_id(FIELD.body)
        if body is None:
            return
        if kind != "host" and self.has_ifs and self._not_compiled(node, None):
            return      # device code the device pass does not compile (`#ifndef __CUDA_ARCH__`'s kernel)
        (l0, c0), (l1, _) = node.start_point, node.end_point
        if kind != "host" and self.src.find(b"define", body.start_byte, body.end_byte) >= 0:
            self._body_defines(body)
        has_shared = b"__shared__" in self.src[body.start_byte:body.end_byte]
        shared = tuple(self._local_arrays(body)) if has_shared else ()
        maxnreg = self._max_registers(node, declarator, tparams) if kind == "global" and self.has_maxnreg else None
        self.functions.append(Function(name.split("::")[-1], kind, params, l0 + 1, c0 + 1, l1 + 1, node, body,
                                       dict(tparams), bounds, shared, maxnreg))
        if kind == "global":
            self.kernel_names.add(name.split("::")[-1])

    def _unwalked_errors(self, root) -> None:
        """The syntax errors where the walk does not go (kernel bodies, explicit instantiations): a
        missing `;` or `)` leaves work out of the analysis, which PA001 and the reward's parse gate
        must know. Only the branches that hold one are entered; one the walk found is not added again."""
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type == "ERROR" or node.is_missing:
                self._error(node)
                continue
            if node.type != "launch_bounds":    # a third argument is an ERROR node _function reads
                stack.extend(c for c in reversed(node.children) if c.has_error)

    def _max_registers(self, node, declarator, tparams: dict[str, int | None]) -> int | None:
        """`__maxnreg__(n)` before the kernel's name (the pre-pass blanked it: read as written)."""
        begin = _original_offset(self.shifts, node.start_byte)
        end = _original_offset(self.shifts, declarator.start_byte)
        m = _MAXNREG.search(self.original, begin, end)
        if m is not None:
            value = m.group(1)
        else:
            value = self._maxnreg_macro(begin, end)
            if value is None:
                return None
        known = {**self.constants, **{k: v for k, v in tparams.items() if v is not None}}
        return count(eval_constant(value.decode("utf-8", "replace"), known), 1, 255)

    def _maxnreg_macro(self, begin: int, end: int) -> bytes | None:
        """The cap of a `__maxnreg__` macro used between `begin` and `end` of the original text: its
        body's argument, the use's argument in place of the macro's parameter."""
        for d in _MAXNREG_MACRO.finditer(self.original):
            name, param, arg = d.group(1), (d.group(2) or b"").strip(), d.group(3).strip()
            if param:
                use = re.compile(rb"\b" + re.escape(name) + rb"\s*\(([^()]*)\)").search(self.original, begin, end)
                if use is not None:
                    return use.group(1).strip() if arg == param else arg
            elif re.compile(rb"\b" + re.escape(name) + rb"\b").search(self.original, begin, end):
                return arg
        return None

    def _kind_from_macros(self, node, kind: str) -> str:
        """A qualifier macro that the pre-pass blanked sits just before the definition."""
        if not self.qualifier_macros:
            return kind
        prev = node.prev_sibling
        begin = prev.end_byte if prev is not None else max(0, node.start_byte - 200)
        declarator = node.child_by_field_id(FIELD.declarator)
        end = declarator.start_byte if declarator is not None else node.start_byte
        # the macro is in the text as written, whose offsets an expanded macro above moved
        before = self.original[_original_offset(self.shifts, begin):_original_offset(self.shifts, end)]
        for name, expansion in self.qualifier_macros.items():
            if re.search(rb"\b" + re.escape(name.encode()) + rb"\b", before):
                if b"__global__" in expansion or name.endswith(("_GLOBAL", "_KERNEL")):
                    return "global"
                if b"__device__" in expansion or name.endswith(("_DEVICE", "_HD", "_DI", "_HOST_DEVICE", "_DEVICE_INLINE")):
                    kind = "device"
        return kind

    def _params(self, plist) -> tuple[Param, ...]:
        return params_of(plist, self.text)

    def _local_arrays(self, body):
        """`__shared__` declarations in a body, found from the keyword's byte offsets
        (walking every node of every kernel costs more than the parse)."""
        seen = set()
        for m in _word_starts(_SHARED_WORD, self.src[body.start_byte:body.end_byte]):
            off = body.start_byte + m.start()
            n = body.descendant_for_byte_range(off, off + 10)
            while n is not None and n.type != "declaration" and n != body:
                n = n.parent
            if n is None or n.type != "declaration" or n.start_byte in seen:
                continue
            seen.add(n.start_byte)
            quals = self._qualifiers(n)
            if "__shared__" not in quals or (self.has_ifs and self._not_compiled(n, body)):
                continue
            tnode = n.child_by_field_id(FIELD.type)
            base = self.text(tnode) if tnode is not None else "?"
            for decl in n.children_by_field_id(FIELD.declarator):
                if decl.type == "init_declarator":
                    decl = decl.child_by_field_id(FIELD.declarator)
                arr = self._array(decl, base, "extern" in quals, n.start_point[0] + 1, "shared")
                if arr is not None:
                    yield arr

    def _not_compiled(self, node, body) -> bool:
        """Whether a node of device code (below `body`; None: the file) is in a branch of a conditional
        directive that the device pass does not take (`#if 0`, the `#else` of `#ifdef USE_BIG` after
        its `#define`, `#ifndef __CUDA_ARCH__`). An undecided directive's branches are all kept."""
        def decide(n):
            return _device_holds(n, self.text, self.defines, self.constants, self.macros)
        return any(taken is not None and taken == in_alternative
                   for taken, in_alternative in _branches(node, body, decide))

    # -- launches
    def _instantiation(self, node) -> None:
        """`template [__global__] void k<128, 1>(...);` (also `extern template`, `ns::k<...>`)."""
        declarator = next((c for c in node.children if c.type == "function_declarator"), None)
        fn = declarator.child_by_field_id(FIELD.declarator) if declarator is not None else None
        while fn is not None and fn.type == "qualified_identifier":
            fn = fn.child_by_field_id(FIELD.name)
        if fn is None or fn.type != "template_function":
            return
        name, targs = self._template_function(fn)
        if targs:
            self.instantiations.append(Instantiation(name, targs, node.start_point[0] + 1))

    def _kernel_alias(self, declaration, declarator, value) -> None:
        """Record a host local that holds a kernel the file defined before (`auto kern = k<128>;`,
        `void (*f)(float*) = &k;`), for the launches through it (`kern<<<grid, block>>>(...)`)."""
        target = value.child_by_field_id(FIELD.argument) if value.type == "pointer_expression" else value
        while target is not None and target.type == "qualified_identifier":
            target = target.child_by_field_id(FIELD.name)
        if target is None or target.type not in ("identifier", "template_function"):
            return
        name_node = target if target.type == "identifier" else target.child_by_field_id(FIELD.name)
        if name_node is None or self.text(name_node) not in self.kernel_names:
            return
        while declarator is not None and declarator.type != "identifier":   # `(*f)(float*)`: f
            inner = declarator.child_by_field_id(FIELD.declarator)
            declarator = inner if inner is not None else next(
                (c for c in declarator.named_children if c.type != "comment"), None)
        if declarator is None:
            return
        scope = declaration.parent
        while scope is not None and scope.type != "function_definition":
            scope = scope.parent
        self.kernel_aliases[self.text(declarator)] = (target, scope.end_byte if scope is not None else len(self.src))

    def _template_function(self, fn) -> tuple[str, tuple[str, ...]]:
        """`k<128, float>`: ("k", ("128", "float"))."""
        name_node = fn.child_by_field_id(FIELD.name)
        args = fn.child_by_field_id(FIELD.arguments)
        return (self.text(name_node) if name_node is not None else self.text(fn),
                tuple(self.text(a) for a in code_children(args)) if args is not None else ())

    def _maybe_launch(self, node) -> None:
        syntax = next((c for c in node.children if c.type == "kernel_call_syntax"), None)
        fn = node.child_by_field_id(FIELD.function)
        if syntax is None:
            if fn is not None and fn.type == "identifier":
                called = self.text(fn)
                if called in _LAUNCH_APIS:
                    self._api_launch(node, smem_at=4)
                elif called == _LAUNCH_GGL:
                    self._api_launch(node, smem_at=3)
                elif called in _LAUNCH_EX_APIS:
                    self._api_launch_ex(node)
            return
        targs: tuple[str, ...] = ()
        while fn is not None and fn.type == "qualified_identifier":    # `ns::k<T, 4><<<...>>>`
            fn = fn.child_by_field_id(FIELD.name)
        if fn is not None and fn.type == "template_function":
            name, targs = self._template_function(fn)
            if self.launch_consts:    # `k<BM, BN><<<...>>>` with host code's `const int BM = 64;`
                targs = tuple(self._local_value(a) for a in targs)
        else:
            name = self.text(fn) if fn is not None else "?"
            alias = self.kernel_aliases.get(name) if self.kernel_aliases else None
            if alias is not None and node.start_byte < alias[1]:   # `kern<<<...>>>` of `auto kern = k<128>;`
                if alias[0].type == "template_function":
                    name, targs = self._template_function(alias[0])
                    if self.launch_consts:
                        targs = tuple(self._local_value(a) for a in targs)
                else:
                    name = self.text(alias[0])
        parts = code_children(syntax)
        grid = self._dims(parts[0]) if parts else None
        block = self._dims(parts[1]) if len(parts) > 1 else None
        smem = 0
        if len(parts) > 2:
            v = eval_constant(self.text(parts[2]), self._launch_known())
            smem = count(v)
        arg_list = node.child_by_field_id(FIELD.arguments)
        known = self._launch_known()
        texts = [self.text(a) for a in code_children(arg_list)] if arg_list is not None else []
        stepped = self._stepped() if self.launch_consts else {}
        if stepped:     # a local stepped before the launch (`n++` counting, a loop's `k++`) has no value there
            late = [n for n in self.launch_consts if stepped.get(n.encode(), node.start_byte) < node.start_byte]
            if late:
                known = {k: v for k, v in known.items() if k not in late}
        starts = self._loop_starts(node) if texts and b"for" in self.src else {}
        args = tuple(starts[t] if t in starts else eval_constant(t, known) for t in texts)
        first = tuple(i for i, (t, v) in enumerate(zip(texts, args))
                      if v is not None and (t in starts or self._first_pass_only(t, stepped)))
        (l0, c0) = node.start_point
        partial = self._dims(parts[1], partial=True) if block is None and len(parts) > 1 else None
        self.launches.append(Launch(name.split("::")[-1], targs, grid, block, smem, l0 + 1, c0 + 1,
                                    self.text(parts[0]) if parts else "", self.text(parts[1]) if len(parts) > 1 else "",
                                    args, partial or (), bool(parts) and self._grid_exact(parts[0]), first))

    def _loop_starts(self, node) -> dict[str, int | float]:
        """The counters of the host loops around a launch, each at its first value (`for (int k = 0;
        k < n; k++) lu<<<g, b>>>(A, k)`: k = 0), innermost loop first. A counter changes between
        launches, so it is no constant; its first value is one it takes, where 4096 for an unknown
        name may be none (`if (j > k && j < N)` with N = 2048 reaches no thread)."""
        out: dict[str, int | float] = {}
        p = node.parent
        while p is not None and p.type != "function_definition":
            init = p.child_by_field_id(FIELD.initializer) if p.type == "for_statement" else None
            if init is not None:
                if init.type == "declaration":
                    pairs = [(d.child_by_field_id(FIELD.declarator), d.child_by_field_id(FIELD.value))
                             for d in init.children_by_field_id(FIELD.declarator) if d.type == "init_declarator"]
                else:   # `k = 0`, `i = 0, j = n`
                    pairs = [(e.child_by_field_id(FIELD.left), e.child_by_field_id(FIELD.right)) for e in _comma_operands(init)
                             if e is not None and e.type == "assignment_expression"
                             and self.text(e.child_by_field_id(FIELD.operator)) == "="]
                for name, value in pairs:
                    if name is not None and value is not None and name.type == "identifier" and self.text(name) not in out:
                        v = eval_constant(self.text(value), self._launch_known())
                        if v is not None:
                            out[self.text(name)] = v
            p = p.parent
        return out

    def _api_launch(self, node, smem_at: int) -> None:
        """`cudaLaunchKernel((const void*)k<128>, grid, block, args, smem, stream)` (also the
        cooperative launch and HIP's; `hipLaunchKernelGGL(k, grid, block, smem, stream, args...)`,
        its dynamic shared memory at `smem_at`): the kernel, its template arguments and the
        launch's shape, as a `<<<...>>>` site gives them. The kernel's arguments are not read."""
        arg_list = node.child_by_field_id(FIELD.arguments)
        parts = code_children(arg_list) if arg_list is not None else []
        if len(parts) < 3:
            return
        fn = _launched_kernel(parts[0])
        if fn is None:
            return
        name, targs = self._template_function(fn) if fn.type == "template_function" else (self.text(fn), ())
        if self.launch_consts:
            targs = tuple(self._local_value(a) for a in targs)
        self._api_site(node, name, targs, parts[1], parts[2], parts[smem_at] if len(parts) > smem_at else None)

    def _api_site(self, node, name: str, targs: tuple[str, ...], grid, block, smem) -> None:
        """A launch API call's site, from its grid, block and dynamic shared memory expressions (None:
        not given, so unknown; no shared memory)."""
        block_dims = self._dims(block) if block is not None else None
        partial = self._dims(block, partial=True) if block is not None and block_dims is None else None
        (l0, c0) = node.start_point
        self.launches.append(Launch(
            name.split("::")[-1], targs, self._dims(grid) if grid is not None else None, block_dims,
            count(eval_constant(self.text(smem), self._launch_known())) if smem is not None else 0,
            l0 + 1, c0 + 1, self.text(grid) if grid is not None else "", self.text(block) if block is not None else "",
            (), partial or (), self._grid_exact(grid) if grid is not None else False))

    def _api_launch_ex(self, node) -> None:
        """`cudaLaunchKernelEx(&config, k<128>, args...)`: the shape is the config's, as the function
        sets it before the call (`config.blockDim = dim3(128);`) or initializes it
        (`cudaLaunchConfig_t config = {grid, block, smem, stream};`); a member it does not set so
        is unknown."""
        arg_list = node.child_by_field_id(FIELD.arguments)
        parts = code_children(arg_list) if arg_list is not None else []
        if len(parts) < 2:
            return
        cfg = parts[0]
        while cfg is not None and cfg.type in ("pointer_expression", "parenthesized_expression"):
            cfg = cfg.child_by_field_id(FIELD.argument) if cfg.type == "pointer_expression" else \
                (code_children(cfg) or [None])[0]
        fn = _launched_kernel(parts[1])
        if cfg is None or cfg.type != "identifier" or fn is None:
            return
        name, targs = self._template_function(fn) if fn.type == "template_function" else (self.text(fn), ())
        if self.launch_consts:
            targs = tuple(self._local_value(a) for a in targs)
        fields = self._config_fields(self.text(cfg), node)
        self._api_site(node, name, targs, fields.get("gridDim"), fields.get("blockDim"), fields.get("dynamicSmemBytes"))

    def _config_fields(self, cfg: str, call) -> dict:
        """The expressions a launch config's members take last before `call`, in the function around
        it: `cfg.blockDim = ...;` assignments, else its declaration's initializer list."""
        body = call
        while body is not None and body.type != "function_definition":
            body = body.parent
        if body is None:
            return {}
        start, end = body.start_byte, call.start_byte
        text = self.src[start:end]
        name = re.escape(cfg.encode())
        out: dict = {}
        init = None
        for m in re.finditer(rb"\b" + name + rb"\s*(?:=\s*)?\{", text):     # `cudaLaunchConfig_t cfg = {...}`
            init = body.descendant_for_byte_range(start + m.end() - 1, start + m.end())
        while init is not None and init.type != "initializer_list":
            init = init.parent
        if init is not None:
            values = code_children(init)
            if not any(v.type == "initializer_pair" for v in values):
                out.update(zip(_CONFIG_FIELDS, values))
            for v in values:      # `{.gridDim = grid, .blockDim = block}`
                if v.type == "initializer_pair":
                    d, value = v.child_by_field_id(FIELD.designator), v.child_by_field_id(FIELD.value)
                    member = self.text(d).lstrip(". ") if d is not None else ""
                    if member in _CONFIG_FIELDS and value is not None:
                        out[member] = value
        for m in re.finditer(rb"\b" + name + rb"\s*(?:\.|->)\s*(gridDim|blockDim|dynamicSmemBytes)\s*=(?!=)", text):
            at = body.descendant_for_byte_range(start + m.start(), start + m.start() + 1)
            while at is not None and at.type != "assignment_expression":
                at = at.parent
            right = at.child_by_field_id(FIELD.right) if at is not None else None
            if right is not None:
                out[m.group(1).decode()] = right
        return out

    def _local_value(self, text: str) -> str:
        """A template argument as the file's scope reads it: the value where host code's local
        constants decide it (they are out of scope where the kernel is compiled and analyzed)."""
        if eval_constant(text, self.constants) is not None:
            return text
        v = eval_constant(text, self.launch_consts | self.constants)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v != int(v):
            return text
        return str(int(v))

    def _grid_exact(self, node) -> bool:
        """Whether each dimension of a launch's grid is a floor division as written (`n / 256`,
        `dim3 grid(w / threads.x, h / threads.y, 1)`), not a rounded-up one (`(n + 255) / 256`)."""
        if node.type == "identifier":
            texts = self.dim3_texts.get(self.text(node)) if not self._members_set(self.text(node)) else None
        elif node.type == "call_expression" and self.text(node.child_by_field_id(FIELD.function) or node) == "dim3":
            texts = tuple(self.text(a) for a in code_children(node.child_by_field_id(FIELD.arguments)))
        else:
            texts = (self.text(node),)
        return bool(texts) and all(t.strip() == "1" or _FLOOR_DIVISION.fullmatch(t.strip()) for t in texts)

    def _dims(self, node, partial: bool = False) -> tuple | None:
        """A launch's grid or block shape where constants decide it; with `partial`, also one
        where only some dimensions are known (None for each other)."""
        dims = None
        if node.type == "identifier" and self.text(node) in self.dim3_vars:
            dims = self._dim3(self.text(node))
        elif node.type == "call_expression":
            fn = node.child_by_field_id(FIELD.function)
            if fn is not None and self.text(fn) == "dim3":
                dims = self._dims_from_args(node.child_by_field_id(FIELD.arguments), partial)
        elif node.type == "initializer_list":
            dims = self._dims_from_args(node, partial)
        elif node.type == "parenthesized_expression" and _comma_parts(node):   # `{bx, by, 1}` (preprocess)
            dims = self._dims_from_args(node, partial)
        else:
            v = count(eval_constant(self.text(node), self._launch_known()), 1, 1 << 31)
            dims = (v, 1, 1) if v is not None else None
        if dims is None or (None in dims and not partial):
            return None
        return dims

    def _dim3(self, name: str) -> tuple[int | None, ...]:
        """A dim3 local's dimensions, each the file sets through a member (`grid.x = ...;`, in a
        loop around the launch or between declaration and launch) unknown."""
        dims = self.dim3_vars[name]
        members = self._members_set(name)
        return tuple(None if "xyz"[i] in members else v for i, v in enumerate(dims)) if members else dims

    def _members_set(self, name: str) -> str:
        if self.members is None:
            self.members = {}
            src = self.src
            for m in _MEMBER_ASSIGNED.finditer(src) if b"dim3" in src else ():
                start, end = _word_before(src, m.start())
                if start < end and (start == 0 or src[start - 1] not in (46, 62)):
                    key = src[start:end].decode()       # not `a.b.x` nor `p->b.x`: a local's own member
                    self.members[key] = self.members.get(key, "") + m.group(1).decode()
        return self.members.get(name, "")

    def _dims_from_args(self, args, partial: bool = False) -> tuple | None:
        if args is None:
            return None
        parts = _comma_parts(args) if args.type == "parenthesized_expression" else code_children(args)
        vals = [count(eval_constant(self.text(a), self._launch_known()), 1, 1 << 31) for a in parts]
        if not vals or len(vals) > 3 or all(v is None for v in vals) or (None in vals and not partial):
            return None
        return tuple(vals + [1] * (3 - len(vals)))
