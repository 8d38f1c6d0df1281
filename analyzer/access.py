"""Per kernel: the memory accesses, their byte addresses as symbolic expressions,
and a networkx graph from definitions to uses.

One walk over the kernel body in program order keeps an environment of local
variables (forward substitution: `int i = blockIdx.x*blockDim.x+threadIdx.x`
makes every later `a[i]` an expression over the built-in symbols). A variable
changed inside a loop or a branch becomes a conditional expression or an
opaque symbol (`name@line`); the graph links the symbols each definition
reads to the definition, so thread dependence (the taint that divergence and
barrier checks need) is reachability from threadIdx in that graph.
"""
from __future__ import annotations

import math

import operator
import re
import struct
from dataclasses import dataclass, field

from . import symbolic as S
from ._records import fast_init
from .parse import (_WORD_BYTES, DOUBLE_TYPES, FIELD, FLOAT_TYPES, SCALAR_SIZES, WMMA_FRAGMENT, Function, Program,
                    alias_of, code_children, count, eval_constant, params_of, type_size)
from .symbolic import Expr
from .vectorize import merge_shared, unroll_factor

MAX_EXPR = 400          # node budget of a substituted expression before it becomes opaque
MAX_INLINE_DEPTH = 3    # __device__ helpers inlined into their callers, this deep

_VECTOR_COMPONENTS = {"x": 0, "y": 1, "z": 2, "w": 3}
_COMPONENT_TYPE = {
    "float2": "float", "float3": "float", "float4": "float", "int2": "int", "int3": "int", "int4": "int",
    "uint2": "unsigned", "uint3": "unsigned", "uint4": "unsigned", "double2": "double", "double4": "double",
    "half2": "half", "__half2": "__half", "__nv_bfloat162": "__nv_bfloat16", "char4": "char", "uchar4": "unsigned char",
    "short2": "short", "ushort2": "unsigned short", "longlong2": "long long",
}
_ATOMICS = {"atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc", "atomicDec", "atomicCAS",
            "atomicAnd", "atomicOr", "atomicXor", "atomicAdd_block", "atomicAdd_system", "atomicMax_block",
            "atomicMin_block", "atomicExch_block", "atomicCAS_block", "atomicOr_block", "atomicAnd_block"}
_LOAD_INTRINSICS = {"__ldg", "__ldca", "__ldcg", "__ldcs", "__ldlu", "__ldcv"}
_STORE_INTRINSICS = {"__stcg", "__stcs", "__stwb", "__stwt"}
# a thread's own asynchronous global-to-shared copy of 4, 8 or 16 bytes (LDGSTS): (dst, src, size[, pipe])
_ASYNC_COPIES = {"__pipeline_memcpy_async", "cuda::memcpy_async", "memcpy_async"}
_WMMA_HALVES = {"half", "__half", "__nv_bfloat16", "nv_bfloat16"}
_WMMA_QUARTERS = ((0, 0), (8, 0), (0, 8), (8, 8))   # (rows down, elements across): a 16x16 tile's four 8x8 quarters
# inline PTX tensor-core products: mma.sync (a warp's) and wgmma (a warpgroup's), with their shape
_PTX_MMA = re.compile(r"\b(wg)?mma(?:\.mma_async)?\.sync\.aligned\.m(\d+)n(\d+)k(\d+)")
# inline PTX memory instructions (`asm volatile("..." : outputs : inputs)`), operands as %N
_PTX_SIZES = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "bf16": 2, "b32": 4, "u32": 4, "s32": 4,
              "f32": 4, "f16x2": 4, "bf16x2": 4, "b64": 8, "u64": 8, "s64": 8, "f64": 8, "b128": 16}
_PTX_LDST = re.compile(r"\b(ld|st)\.(global|shared)(?:::cta)?((?:\.[\w:]+)*?)\.(v2|v4|v8)?\.?([a-z]+\d+(?:x2)?)\s+"
                       r"(?:\{[^}]*\}|%\d+)?\s*,?\s*\[\s*%(\d+)\s*(?:\+\s*(\d+))?\s*\]")
_PTX_MATRIX = re.compile(r"\b(ldmatrix|stmatrix)\.sync\.aligned\.m8n8\.x([124])(?:\.trans)?\.shared(?:::cta)?\.b16\s*"
                         r"(?:\{[^}]*\}\s*,\s*)?\[\s*%(\d+)\s*\]")
_PTX_CP_ASYNC = re.compile(r"\bcp\.async\.c[ag]\.shared(?:::cta)?\.global(?:\.[\w:]+)*\s*\[\s*%(\d+)\s*\]\s*,\s*"
                           r"\[\s*%(\d+)\s*\]\s*,\s*(\d+)")
# PTX barriers (what __syncthreads, __syncwarp and named barriers compile to); the operands
# tell a whole-block barrier (`bar.sync 0`) from a partial one (`bar.sync 1, 128`)
_PTX_BARRIER = re.compile(r"\b(bar\.warp\.sync|mbarrier\.(?:try_wait|test_wait)|barrier\.cluster\.wait|"
                          r"(?:bar|barrier)(?:\.cta)?\.(?:sync|arrive|red))((?:\.[\w:]+)*)\s+([^;\"\\]*)")
_CVTA_SHARED = ("__cvta_generic_to_shared", "cvta_to_shared_u32", "__cvta_generic_to_shared_u32")
# arithmetic a floating literal may sit in; numbers alone in it (`1.0 / 3`) are folded by the compiler
_CONSTANT_ARITHMETIC = frozenset(("binary_expression", "parenthesized_expression", "unary_expression"))
# lists whose elements are values each: a literal alone in one is converted, not computed with
_VALUE_LISTS = frozenset(("argument_list", "initializer_list"))
_NUMBER_IN = re.compile(r"(?<![\w.])(?:\d[\w.]*|\.\d[\w.]*)")
# An unsuffixed floating literal (a double): `1.0`, `.5`, `2.`, `1e-3`; not `1.0f`
_DOUBLE_LITERAL = re.compile(r"(?<![\w.])(?:\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)(?![\w.])")
# float math that takes its argument as a float (`expf`, `fmaxf`, `__expf`, `__fdividef`)
_FLOAT_CALL = re.compile(r"(?:__)?[a-z][a-z0-9_]*f")
_FLOAT_LEAF = re.compile(r"(?<![\w.])(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)[fF]\b|"
                         r"\b(?:__)?[a-z][a-z0-9_]*f\s*\(")
_NARROWING_OPS = frozenset(("+", "-", "*", "/"))
_F32 = struct.Struct("f")
_COMPARISONS = frozenset(("<", ">", "<=", ">=", "==", "!="))
_TRUTH_OPS = _COMPARISONS | {"&&", "||"}     # operators whose value is 0 or 1
_NAME_IN = re.compile(r"[A-Za-z_]")
# a macro's name as headers write them (`CUDA_GET_THREAD_ID`, `GET_IDX`): capitals, digits, underscores
_MACRO_NAME = re.compile(r"[A-Z][A-Z0-9_]*[A-Z0-9]")
# a statement macro of this name from an unseen header is a barrier (_Walker._macro_barrier):
# capitals (a macro) with SYNC or BARRIER as a word of it (not CP_ASYNC_WAIT)
_MACRO_BARRIER = re.compile(r"[A-Z0-9_]*(?:^|_)(?:SYNC|BARRIER)[A-Z0-9_]*")
# what a file's own definition of such a macro holds when it is a barrier (one the pre-pass did not expand)
_BARRIER_WORD = re.compile(rb"__syncthreads|__syncwarp|\bbar(?:rier)?\.|\.sync\(|\bsync\(|[A-Z_]SYNC\b|BARRIER")
_BARRIERS = {"__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or", "__syncwarp",
             "sync", "__barrier_sync"}
_BUILTIN_FIELDS = {"threadIdx", "blockIdx", "blockDim", "gridDim"}
_CASTS = {"reinterpret_cast", "static_cast", "const_cast", "dynamic_cast"}
THREAD_ROOTS = ("threadIdx.x", "threadIdx.y", "threadIdx.z", "%thread")


# The grammar's field ids that the walker reads, as module ints (C ints when compiled): a
# `FIELD.x` each time is a module lookup and an attribute lookup, ~10^3 a file. Set by the first
# analysis (the grammar is loaded by then).
F_ALTERNATIVE = 0
F_ARGUMENT = 0
F_ARGUMENTS = 0
F_BODY = 0
F_CONDITION = 0
F_CONSEQUENCE = 0
F_DECLARATOR = 0
F_FIELD = 0
F_FUNCTION = 0
F_INDICES = 0
F_INITIALIZER = 0
F_LEFT = 0
F_NAME = 0
F_OPERATOR = 0
F_RIGHT = 0
F_SIZE = 0
F_TYPE = 0
F_UPDATE = 0
F_VALUE = 0


def _field_ids() -> None:
    global F_ALTERNATIVE, F_ARGUMENT, F_ARGUMENTS, F_BODY, F_CONDITION, F_CONSEQUENCE, F_DECLARATOR
    global F_FIELD, F_FUNCTION, F_INDICES, F_INITIALIZER, F_LEFT, F_NAME, F_OPERATOR
    global F_RIGHT, F_SIZE, F_TYPE, F_UPDATE, F_VALUE, _KINDS
    F_ALTERNATIVE = FIELD.alternative
    F_ARGUMENT = FIELD.argument
    F_ARGUMENTS = FIELD.arguments
    F_BODY = FIELD.body
    F_CONDITION = FIELD.condition
    F_CONSEQUENCE = FIELD.consequence
    F_DECLARATOR = FIELD.declarator
    F_FIELD = FIELD.field
    F_FUNCTION = FIELD.function
    F_INDICES = FIELD.indices
    F_INITIALIZER = FIELD.initializer
    F_LEFT = FIELD.left
    F_NAME = FIELD.name
    F_OPERATOR = FIELD.operator
    F_RIGHT = FIELD.right
    F_SIZE = FIELD.size
    F_TYPE = FIELD.type
    F_UPDATE = FIELD.update
    F_VALUE = FIELD.value
    _KINDS = _kind_names()


def _kind_names() -> list:
    """Node type names by kind id (`_KINDS[node.kind_id]` is `node.type`), interned: the walk's
    comparisons of a type with a literal are then mostly identity tests, and the dispatch's
    dict lookups find the hash cached; `node.type` makes a new string on every read. An ERROR
    node's id is the largest 16-bit one, so the table spans all 2**16 ids."""
    import sys

    from .parse import _language

    lang = _language()
    names: list = [None] * 65536
    for i in range(lang.node_kind_count):
        names[i] = sys.intern(lang.node_kind_for_id(i))
    names[65535] = "ERROR"
    return names


_KINDS: list = []


# ------------------------------------------------------------------ the graph

class DefUseGraph:
    """Definitions to uses: an edge a -> b when b's definition reads a.

    Kept as adjacency sets while walking (networkx costs 0.13 s to import, too
    much for a pre-commit hook's start); `to_networkx()` gives the same graph as
    an `nx.DiGraph` for analyses and drawing.
    """

    def __init__(self) -> None:
        self.succ: dict[str, set[str]] = {}
        self.attrs: dict[str, dict] = {}

    def add_node(self, n: str, **attrs) -> None:
        if n not in self.succ:
            self.succ[n] = set()
        if attrs:
            self.attrs.setdefault(n, {}).update(attrs)

    def add_edge(self, a: str, b: str) -> None:
        succ = self.succ
        s = succ.get(a)
        if s is None:
            s = succ[a] = set()
        s.add(b)
        if b not in succ:
            succ[b] = set()

    def has_node(self, n: str) -> bool:
        return n in self.succ

    __contains__ = has_node

    def descendants(self, n: str) -> set[str]:
        seen: set[str] = set()
        stack = list(self.succ.get(n, ()))
        while stack:
            x = stack.pop()
            if x not in seen:
                seen.add(x)
                stack.extend(self.succ.get(x, ()))
        return seen

    def to_networkx(self):
        import networkx as nx

        g = nx.DiGraph()
        for n in self.succ:
            g.add_node(n, **self.attrs.get(n, {}))
        g.add_edges_from((a, b) for a, bs in self.succ.items() for b in bs)
        return g


# ------------------------------------------------------------------ records

@fast_init
@dataclass(frozen=True)
class Loop:
    var: str | None           # the induction variable, when the loop has one
    init: Expr
    cond: Expr | None
    step: tuple[str, Expr] | None   # ("+=", 1), ("*=", 2), (">>=", 1)...
    line: int
    kind: str = "for"         # for, while, do
    iter_symbol: str = ""     # bound to the iteration number when the models enumerate

    def __hash__(self) -> int:
        # the dataclass's hash, kept: the models' caches hash loops ~10^2 times a file, and
        # each time the fields' expressions (deep tuples) would be hashed again
        h = self.__dict__.get("_hash")
        if h is None:
            h = self.__dict__["_hash"] = hash((self.var, self.init, self.cond, self.step, self.line, self.kind,
                                               self.iter_symbol))
        return h

    def __getstate__(self) -> dict:
        # str hashes differ between processes: the kept hash does not travel
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}


@fast_init
@dataclass(frozen=True)
class Access:
    array: str                # base: a parameter, a __shared__ array, a local array
    space: str                # global, shared, local, constant, unknown
    kind: str                 # load, store, atomic
    address: Expr             # byte offset from the base
    elem_size: int
    elem_type: str
    line: int
    col: int
    text: str
    loops: tuple[Loop, ...]
    guards: tuple[Expr, ...]  # conditions that hold where the access runs
    function: str             # where it is written (a helper inlined into the kernel, or the kernel)
    issued: bool = True       # False: the compiler folds it into a neighbour's wider access (vectorize.py)

    @property
    def index(self) -> Expr:
        """Element index, for display."""
        return S.binop("/", self.address, ("c", self.elem_size)) if self.elem_size else self.address


@fast_init
@dataclass(frozen=True)
class Branch:
    cond: Expr
    line: int
    col: int
    loops: tuple[Loop, ...]
    guards: tuple[Expr, ...]
    text: str
    end_line: int = 0     # the if statement's last line (its else branch's too)


@fast_init
@dataclass(frozen=True)
class Barrier:
    name: str
    line: int
    col: int
    loops: tuple[Loop, ...]
    guards: tuple[Expr, ...]  # enclosing conditions (thread-dependent ones make it a bug)
    loop_conds: tuple[Expr, ...]


@fast_init
@dataclass(frozen=True)
class MatrixOp:
    """A warp's tensor-core product `mma_sync(d, a, b, c)`: `macs` multiply-adds (m * n * k of
    its fragments' shape), run where its loops and guards let it (counted as a barrier's warps)."""
    line: int
    col: int
    macs: int
    loops: tuple[Loop, ...]
    guards: tuple[Expr, ...]


@fast_init
@dataclass(frozen=True)
class FloatLiteral:
    text: str
    line: int
    col: int
    context: str              # the expression it appears in
    # in arithmetic on numbers alone whose value is stored, not combined with a variable
    # (`real div = 1.0 / 3;`): the compiler folds it, no FP64 instruction runs
    folded: bool = False
    # one operation with a float whose result is a float at once (`y = x / 2.0`, `x > .5`,
    # `return c ? 1 : .01;` in a float function), the literal exact in float: the compiler
    # does it in FP32 (_Walker._narrowed)
    narrowed: bool = False


@fast_init
@dataclass(frozen=True)
class Event:
    """Program-order stream of shared accesses and barriers, for the race check."""

    kind: str                 # "access" or "barrier"
    item: object
    depth: int                # loop depth


@dataclass
class KernelAccesses:
    kernel: Function
    accesses: list[Access] = field(default_factory=list)
    branches: list[Branch] = field(default_factory=list)
    barriers: list[Barrier] = field(default_factory=list)
    mmas: list[MatrixOp] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    float_literals: list[FloatLiteral] = field(default_factory=list)
    double_calls: list[tuple[str, int, int]] = field(default_factory=list)
    local_types: dict[str, str] = field(default_factory=dict)
    graph: DefUseGraph = field(default_factory=DefUseGraph)
    # the `__shared__` arrays of the device functions the walk inlined (a block reduction's
    # `warp_sums`): the kernel's own allocations too, once each however often it calls them
    helper_shared: list = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    exits: list = field(default_factory=list)     # guards an early `return` left (`(c) == 0` after `if (c) return;`)
    # the size nodes of local arrays whose size the walk found no constant for (CP705 asks which are
    # run-time values: `float buf[n]` does not compile)
    unsized_locals: list = field(default_factory=list)
    # (name, offset of its declarator, end of its scope) of the locals the walk declared (the
    # kernel's and those of the functions it inlines; for-headers' too): what the reward's scope
    # check looks at first (rules.names.out_of_scope_names)
    declarations: list = field(default_factory=list)
    uses_double: bool = False
    uses_float: bool = False
    flops_per_thread: int = 0       # arithmetic operators seen, a static count
    # the names with values in this kernel: the file's constants and the template's arguments
    constants: dict[str, int | float] = field(default_factory=dict)
    _tainted: frozenset[str] | None = None

    @property
    def tainted(self) -> frozenset[str]:
        """Symbols whose value may differ between threads of a block."""
        if self._tainted is None:
            out: set[str] = set()
            for root in THREAD_ROOTS:
                if root in self.graph:
                    out.add(root)
                    out.update(self.graph.descendants(root))
            self._tainted = frozenset(out)
        return self._tainted

    def thread_dependent(self, e: Expr) -> bool:
        taint = self.tainted
        return any(s in taint or s.startswith("threadIdx") for s in S.symbols(e))

    def data_dependent(self, e: Expr) -> bool:
        return S.has_load(e)



def _f32(x: float) -> float:
    """x rounded to float32; NaN where float32 cannot hold it."""
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return float("nan")


def _unwrapped(node):
    """The expression inside any parentheses around it (`((x))` -> `x`)."""
    while _KINDS[node.kind_id] == "parenthesized_expression" and node.named_child_count == 1:
        node = node.named_children[0]
    return node


def _truth_valued(node) -> bool:
    """A comparison or a logical operation (0 or 1: `(x > 0) + .1` is a select of two constants)."""
    node = _unwrapped(node)
    kind = _KINDS[node.kind_id]
    if kind == "unary_expression":
        op = node.child_by_field_id(F_OPERATOR)
        return op is not None and op.type == "!"
    if kind != "binary_expression":
        return False
    op = node.child_by_field_id(F_OPERATOR)
    return op is not None and op.type in _TRUTH_OPS


def _unparenthesized_parent(node):
    """(the node or the outermost parentheses around it, what holds them)."""
    child, parent = node, node.parent
    while parent is not None and _KINDS[parent.kind_id] == "parenthesized_expression":
        child, parent = parent, parent.parent
    return child, parent

@fast_init
@dataclass(frozen=True)
class _Ptr:
    base: str
    offset: Expr              # bytes
    elem_type: str
    elem_size: int
    space: str
    dims: tuple[int | None, ...] = ()   # remaining array dimensions (multi-dimensional arrays)


def _wide(p: _Ptr, width: int) -> _Ptr:
    """`p` accessed `width` bytes at a time (a copy's or an instruction's width, not its element's)."""
    return p if width == p.elem_size else _Ptr(p.base, p.offset, p.elem_type, width, p.space, p.dims)


def _row_bytes(dims: tuple, elem_size: int) -> Expr:
    """Bytes from one index of an array's first dimension to the next: the product of the other
    dimensions (ints, or expressions of a template's sizes) and the element size; unknown where
    a dimension is."""
    row = elem_size
    sym = None
    for d in dims[1:]:
        if type(d) is tuple:
            sym = d if sym is None else S.binop("*", sym, d)
        elif d:
            row *= d
        else:
            return S.UNKNOWN
    return ("c", row) if sym is None else S.binop("*", sym, ("c", row))


class _Opaque(Exception):
    pass


# The walker's methods are C functions in the compiled build (access.pxd), which cannot hold
# closures: no generator expressions or lambdas in them; these helpers stand in.
_BY_END_START = operator.itemgetter(0, 1)


# PTX instructions whose result is a function of their operands alone (no memory, no special
# register, no other lane's value)
_PTX_PURE_OPS = frozenset((
    "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min", "max", "popc", "clz",
    "bfind", "fns", "brev", "bfe", "bfi", "prmt", "shf", "shl", "shr", "and", "or", "xor", "not", "cnot", "lop3",
    "mov", "cvt", "setp", "selp", "slct", "set", "fma", "rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh",
    "copysign", "testp", "dp4a", "dp2a"))
_PTX_OP = re.compile(r"(?:^|[;{}\"])\s*(?:@!?%?\w+\s+)?([a-z][a-z0-9_]*)")
_PTX_SPECIAL = re.compile(r"%(?:tid|ntid|laneid|warpid|nwarpid|ctaid|nctaid|smid|nsmid|gridid|clock|lanemask|globaltimer|pm\d)")


def _pure_ptx(code: str) -> bool:
    """Whether every instruction of an asm statement is arithmetic on its operands."""
    if _PTX_SPECIAL.search(code):
        return False
    ops = _PTX_OP.findall(code)
    return bool(ops) and all(op in _PTX_PURE_OPS for op in ops)


def _ptx_barrier_name(instruction: str, operands: str) -> str:
    """The barrier a PTX barrier instruction is, by the names the checks know: `bar.sync 0` (one
    operand: every thread of the block) is `__barrier_sync`, which SY301 checks like
    __syncthreads; one with a thread count, an arrive or a reduction is a barrier for the race
    check only (warp-specialized code calls them under branches by design)."""
    if instruction == "bar.warp.sync":
        return "__syncwarp"
    if instruction.startswith("barrier.") and not instruction.startswith("barrier.cluster"):
        instruction = "bar." + instruction[len("barrier."):]      # `barrier.sync` is `bar.sync` by another name
    if instruction.endswith(".sync") and "," not in operands:
        return "__barrier_sync"
    return instruction


def _symbols_of(values) -> set:
    """The union of the values' free symbols (a new set)."""
    out: set = set()
    for v in values:
        out |= S.symbols(v)
    return out


_EARLY_EXIT = re.compile(r"\b(?:break|return|goto)\b")
# Calls whose code has a slow path (a branch): a loop around one is no single basic block, and
# the compiler merges no accesses across its iterations (analyzer/vectorize.py). Read off SASS:
# expf, logf, powf, tanhf, erff, rsqrtf, integer division and the __ intrinsics have none.
_BRANCHING_CALLS = frozenset(("sinf", "cosf", "tanf", "sincosf", "sin", "cos", "tan", "sincos", "sqrtf", "sqrt"))
# led by `#` (a literal to search for); a match is taken where only blanks precede it on its line
_PRAGMA_UNROLL_COUNT = re.compile(rb"#[ \t]*pragma[ \t]+(unroll|nounroll)\b[ \t(]*([A-Za-z_0-9]*)[^\n]*\n"
                                  rb"(?:[ \t]*(?://[^\n]*)?\n)*")
_PRAGMA_LINES: list = [None, {}]     # the last file's source and its pragmas by loop line (unroll_pragmas)
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
_FLOAT_LITERAL = re.compile(r"(?<![xX\w])(?:\d+\.\d*|\.\d+|\d+[eE][-+]?\d+)|\b\d+[fF]\b|\b(?:float|double|half)\b")
_MAX_CONSTANT_TRIPS = 1 << 16     # a longer loop's count is not worth walking to
_CONTINUE = re.compile(rb"\bcontinue\b")
_LOOPS = frozenset(("for_statement", "while_statement", "do_statement", "for_range_loop"))
# what may stand between a loop's body and an update that runs once in each of its iterations
# (a dereference, a declaration's initializer and an assignment's sides run once too: `v = *p++;`)
_ONCE = frozenset(("expression_statement", "compound_statement", "comma_expression", "parenthesized_expression",
                   "pointer_expression", "init_declarator", "declaration", "assignment_expression"))


# cooperative groups (cooperative_groups.h): what their sync() is, and their ranks and sizes
_GROUP_BARRIER = {"block": "__syncthreads", "grid": "grid.sync", "tile": "__syncwarp", "subset": "__syncwarp"}
# Groups of some lanes of one warp, known at run time: `coalesced_threads()` (the lanes active
# there), `binary_partition(tile, pred)`, `labeled_partition(tile, label)`
_SUBSET_GROUP = re.compile(r"(?:^|::|\s)(?:coalesced_group|coalesced_threads\(\)|binary_partition\(\)|"
                           r"labeled_partition\(\))\s*$")
_GROUP_TYPE = re.compile(r"(?:^|::|\s)(?:(thread_block|this_thread_block\(\))|(grid_group|this_grid\(\))|"
                         r"(?:thread_block_tile|tiled_partition)\s*<\s*(\d+)\s*>(?:\(\))?)\s*$")


def _group_of(type_text: str) -> tuple | None:
    """("block", 0), ("grid", 0), ("tile", n) or ("subset", 32) for a cooperative group's type
    (`cg::thread_block`, `thread_block_tile<32>`, `coalesced_group`) or the call that makes one
    (`cg::this_grid()`), else None."""
    if "block" not in type_text and "grid" not in type_text and "tile" not in type_text:
        if ("coalesced" in type_text or "partition" in type_text) and _SUBSET_GROUP.search(type_text.strip()):
            return ("subset", 32)
        return None
    m = _GROUP_TYPE.search(type_text.strip())
    if m is None:
        return None
    if m.group(1):
        return ("block", 0)
    if m.group(2):
        return ("grid", 0)
    n = int(m.group(3))
    return ("tile", n) if 0 < n <= 32 and not n & (n - 1) else None


def _dim3_product(name: str) -> Expr:
    return S.binop("*", S.binop("*", ("s", name + ".x"), ("s", name + ".y")), ("s", name + ".z"))


def _linear(index: str, dims: str) -> Expr:
    """x + y * dims.x + z * dims.x * dims.y: the linear rank of a 3-D index."""
    dx, dy = ("s", dims + ".x"), ("s", dims + ".y")
    return S.binop("+", S.binop("+", ("s", index + ".x"), S.binop("*", ("s", index + ".y"), dx)),
                   S.binop("*", ("s", index + ".z"), S.binop("*", dx, dy)))


# headers' helpers for a thread's lane in its warp (GPUSorting's, CUTLASS-style code's), where the file
# does not define them: their value is the lane
_LANE_CALLS = frozenset(("getLaneId", "getLaneID", "get_lane_id", "laneId", "lane_id", "LaneId", "__lane_id",
                         "laneid", "lane_idx"))


_VECTOR_NAME = re.compile(r"(?:u?char|u?short|u?int|u?long|u?longlong|float|double|half|__half|__nv_bfloat16|nv_bfloat16)[1-4]")


def _braced_scalar(base: str, kernel) -> bool:
    """Whether `T x{v};` / `T x(v);` of this type is `T x = v;`: a scalar (not a CUDA vector, whose
    one braced value is its first field) or the kernel's template type."""
    return (base in SCALAR_SIZES and _VECTOR_NAME.fullmatch(base) is None) or base in kernel.template_params


def _one_braced(value):
    """The one value of a braced or parenthesized initializer (`{ threadIdx.x }`), else `value`."""
    if _KINDS[value.kind_id] in ("initializer_list", "argument_list"):
        inner = [c for c in value.named_children if _KINDS[c.kind_id] != "comment"]
        if len(inner) == 1 and _KINDS[inner[0].kind_id] not in ("initializer_list", "initializer_pair"):
            return inner[0]
    return value


# math.h's constants, doubles (a file's own #define of one is a constant of the file, found first)
_MATH_CONSTANTS = {"M_PI": math.pi, "M_PI_2": math.pi / 2, "M_PI_4": math.pi / 4, "M_1_PI": 1 / math.pi,
                   "M_2_PI": 2 / math.pi, "M_2_SQRTPI": 2 / math.sqrt(math.pi), "M_SQRT2": math.sqrt(2),
                   "M_SQRT1_2": math.sqrt(0.5), "M_E": math.e, "M_LOG2E": math.log2(math.e),
                   "M_LOG10E": math.log10(math.e), "M_LN2": math.log(2), "M_LN10": math.log(10)}


_FLOAT_VECTORS = frozenset(("float2", "float3", "float4", "double2", "double3", "double4"))
_MAKE_VECTORS = frozenset(("make_float2", "make_float3", "make_float4", "make_double2", "make_double3", "make_double4"))


def _lane() -> Expr:
    """A thread's lane in its warp: its linear rank in the block, mod 32."""
    return S.binop("&", _linear("threadIdx", "blockDim"), ("c", 31))


def _group_value(group: tuple, method: str) -> Expr | None:
    """A group method's value (`block.thread_rank()`, `tile.size()`...) as an expression, or None."""
    kind, n = group
    block_rank = _linear("threadIdx", "blockDim")
    if kind == "block":
        if method == "thread_rank":
            return block_rank
        if method in ("size", "num_threads"):
            return _dim3_product("blockDim")
    elif kind == "grid":
        if method == "block_rank":
            return _linear("blockIdx", "gridDim")
        if method == "thread_rank":
            return S.binop("+", S.binop("*", _linear("blockIdx", "gridDim"), _dim3_product("blockDim")), block_rank)
        if method in ("size", "num_threads"):
            return S.binop("*", _dim3_product("gridDim"), _dim3_product("blockDim"))
        if method == "num_blocks":
            return _dim3_product("gridDim")
    elif kind == "subset":
        # its rank counts its lanes from the warp's lowest: taken as the lane, exact where every
        # lane is in it; rank 0, the leader, is one lane of each warp either way
        if method == "thread_rank":
            return S.binop("%", block_rank, ("c", n))
    else:
        if method == "thread_rank":
            return S.binop("%", block_rank, ("c", n))
        if method == "meta_group_rank":
            return S.binop("/", block_rank, ("c", n))
        if method in ("size", "num_threads"):
            return ("c", n)
        if method == "meta_group_size":
            return S.binop("/", _dim3_product("blockDim"), ("c", n))
    return None


# binary operators of lower precedence than C's relational ones (a misread comparison is re-joined below them)
_BELOW_RELATIONAL = frozenset(("&&", "||", "==", "!=", "&", "|", "^"))
_ASSOCIATIVE = frozenset(("&&", "||", "&", "|", "^"))


def _left_join(op: str, a: Expr, b: Expr) -> Expr:
    """a op b, with a chain of the same associative operator in b grouped from the left, as C
    groups `a && b && c`: the shape the expression has where the grammar reads it right."""
    if op in _ASSOCIATIVE and b[0] == "b" and b[1] == op:
        return S.binop(op, _left_join(op, a, b[2]), b[3])
    return S.binop(op, a, b)


def _floating_type(ty: str) -> bool:
    """Whether a type as written is a floating-point one (`float`, `const double*`, `half2`...)."""
    return "float" in ty or "double" in ty or "half" in ty


def _may_alias(a: str, b: str, restrict: set) -> bool:
    """Whether arrays `a` and `b` (parameter names) may be one: `__restrict__` says no."""
    return a == b or (a not in restrict and b not in restrict)


def _dominates(first: tuple, then: tuple) -> bool:
    """Whether an access under the guards `first` runs whenever one under `then` does, `first`
    walked before `then` in one iteration: its guards are the first of `then`'s (the same objects)."""
    if len(first) > len(then):
        return False
    for a, b in zip(first, then):
        if a is not b:
            return False
    return True


_NOT_TYPES = frozenset((b"return", b"else", b"case", b"goto", b"delete", b"throw", b"new", b"sizeof", b"typedef", b"using"))


def _declared_local(source: bytes, name: str) -> bool:
    """Whether the file declares a variable `name` (`int offset = ...`, `float* p;`, `T v[4]`)."""
    for m in re.finditer(rb"\b([A-Za-z_]\w*)(?:\s*[*&]+\s*|\s+)" + re.escape(name.encode()) + rb"\s*[=;,\[)]", source):
        if m.group(1) not in _NOT_TYPES:
            return True
    return False


def _once_per_iteration(node, body) -> bool:
    """Whether `node` (an update inside a loop) runs exactly once when `body` runs once: nothing
    between them but statements, blocks, parentheses and commas (no condition, no inner loop)."""
    if node == body:
        return True
    n = node.parent
    while n is not None and n != body:
        if _KINDS[n.kind_id] not in _ONCE:
            return False
        n = n.parent
    return n is not None


def _names_any(node, names) -> bool:
    """Whether an identifier in the expression `node` is one of `names` (read from the text: its
    value before the loop may be a constant that says nothing of the name)."""
    if _KINDS[node.kind_id] == "identifier":
        return node.text.decode("utf-8", "replace") in names
    for c in node.named_children:
        if _names_any(c, names):
            return True
    return False


def _incdec(node) -> str:
    """The operator of an update expression: "++" or "--" (its first such child)."""
    for c in node.children:
        t = _KINDS[c.kind_id]
        if t == "++" or t == "--":
            return t
    return "++"


def _prefix(node) -> bool:
    """Whether an update expression steps before it is read (`++j`: the stepped value) rather than
    after (`j++`: the value before the step)."""
    return _KINDS[node.children[0].kind_id] in ("++", "--")


# ------------------------------------------------------------------ the walk

# where an assignment or ++/-- may be: every `=` (of `=`, `+=`, `<<=`...; also of `==`, `<=`, a
# declaration's `=`, which the node types below leave out), `++`, `--`, and C++'s word operators
# (`and_eq`: found by their `_eq`, which keeps a first-byte scan; a leading \b makes `re` try every byte)
# PyTorch's tensor accessors as kernel parameters: element type, dimensions
_ACCESSOR = re.compile(r"\b(?:Generic)?(?:Packed)?TensorAccessor(?:32|64)?\s*<\s*([\w:]+(?:\s*<[^<>]*>)?)\s*,\s*(\d+)")
# a struct's type name as a variable's declared type holds it (`Params`, `ns::Args<float>`)
_TYPE_NAME = re.compile(r"[A-Za-z_][\w:]*(?:<[\w\s:,<>*]*>)?")
_ASSIGN_MARK = re.compile(rb"=|\+\+|--|_eq\b")
_WORD_OPERATORS = (b"and", b"xor", b"or")


def _word_operator(src: bytes, at: int, start: int) -> int:
    """Where the word operator whose `_eq` is at `at` begins (`and_eq`, `or_eq`, `xor_eq` as a
    word of their own, not before `start`), or -1 (`is_eq`, `band_eq`)."""
    for word in _WORD_OPERATORS:
        begin = at - len(word)
        if begin >= start and src.startswith(word, begin) and (begin == 0 or src[begin - 1] not in _WORD_BYTES):
            return begin
    return -1


def _assignments(node, src: bytes) -> list[tuple]:
    """(assignment or ++/-- node, the name it changes) for each one inside `node` whose target is a
    plain name, in no set order. The smallest named node around each mark in the text is the
    operator's expression (the mark is its own token); a tree-sitter query finds the same nodes
    but compiling one costs ~30 ms, a tenth of the command line's start."""
    found, seen = [], set()
    start = node.start_byte
    for m in _ASSIGN_MARK.finditer(src, start, node.end_byte):
        at = m.start()
        if src[at] == 95:    # `_eq`
            at = _word_operator(src, at, start)
            if at < 0:
                continue
        n = node.named_descendant_for_byte_range(at, at + 1)
        if n is None:
            continue
        kind = _KINDS[n.kind_id]
        if kind == "assignment_expression":
            target = n.child_by_field_id(F_LEFT)
        elif kind == "update_expression":
            target = n.child_by_field_id(F_ARGUMENT)
        else:
            continue
        if target is None or _KINDS[target.kind_id] != "identifier":
            continue
        key = (n.start_byte, n.end_byte, n.kind_id)
        if key not in seen:
            seen.add(key)
            found.append((n, target))
    return found


def analyze(program: Program, kernel: Function, template_args: dict[str, int | str] | None = None) -> KernelAccesses:
    """The accesses, branches, barriers and def-use graph of one kernel."""
    if not F_BODY:
        _field_ids()
    walker = _Walker(program, kernel, template_args or {})
    try:
        walker.run()
    except RecursionError:
        walker.out.notes.append("nesting too deep: analysis of this kernel stopped early")
    # shared accesses as the compiler issues them: merged into 8/16-byte ones over unrolled loops
    walker.out.accesses = merge_shared(walker.out.accesses, walker.unrolled, walker.blocks)
    return walker.out


_UP = (("+=", ("c", 1)), ("-=", ("c", -1)))
_DOWN = (("-=", ("c", 1)), ("+=", ("c", -1)))


def _counted_trips(loop_sym, init, cond, step) -> tuple[int, int] | None:
    """(trip count, lowest value of v) of `for (v = A; v < B; ++v)` (also `<=`, `!=`) or
    `for (v = A; v >= B; --v)` (also `>`, `!=`) with A and B constants: the loops a register tile
    unrolls. None for any other loop."""
    if (loop_sym is None or cond is None or step is None or init[0] != "c" or type(init[1]) is not int
            or cond[0] != "b" or cond[2] != ("s", loop_sym) or cond[3][0] != "c" or type(cond[3][1]) is not int):
        return None
    a, b, op = init[1], cond[3][1], cond[1]
    if step in _UP and op in ("<", "<=", "!="):
        trips = b - a + (op == "<=")
        return (trips, a) if trips >= 1 else None
    if step in _DOWN and op in (">", ">=", "!="):
        trips = a - b + (op == ">=")
        return (trips, a - trips + 1) if trips >= 1 else None
    return None


def unroll_pragmas(source: bytes, consts) -> dict[int, int]:
    """Line of a loop -> its `#pragma unroll` count: 0 for none given (unroll whole), N for
    `#pragma unroll N` (a number or a known constant), 1 for `nounroll`."""
    out: dict[int, int] = {}
    if b"pragma" not in source:
        return out
    if _PRAGMA_LINES[0] is not source:      # once a file: each of its kernels' walks asks
        found: dict[int, tuple[bytes, bytes]] = {}
        line, pos = 1, 0
        for m in _PRAGMA_UNROLL_COUNT.finditer(source):
            if source[source.rfind(b"\n", 0, m.start()) + 1:m.start()].strip(b" \t"):
                continue    # not the first thing on its line
            line += source.count(b"\n", pos, m.end())
            pos = m.end()
            found[line] = (m.group(1), m.group(2))
        _PRAGMA_LINES[0], _PRAGMA_LINES[1] = source, found
    for line, (kind, word) in _PRAGMA_LINES[1].items():
        count = 0
        if kind == b"nounroll":
            count = 1
        elif word:
            text = word.decode()
            v = int(text) if text.isdigit() else consts.get(text)
            count = v if type(v) is int and v >= 1 else 0
        out[line] = count
    return out


class _Walker:
    # Compiled, this is an extension type: a new attribute must be declared in access.pxd too
    # (tests/test_compiled.py checks that every attribute set here is).
    def __init__(self, program: Program, kernel: Function, template_args: dict[str, int | str]):
        self.p = program
        self.ascii = program._ascii    # the source as str when ASCII (Program.text's): see text
        self.k = kernel
        self.out = KernelAccesses(kernel)
        # global values in registers: (array, access text, extra offset, size, id of loops) ->
        # (loops, guards, address) of the load or store that put it there (record: a later load of
        # the same address under those guards is no request)
        self.loaded = {}
        self.restrict = {prm.name for prm in kernel.params if prm.pointer and prm.restrict}
        self.g = self.out.graph
        consts = dict(program.constants)
        self.type_args: dict[str, str] = {}
        for name, v in kernel.template_params.items():
            given = template_args.get(name)
            if isinstance(given, str):
                self.type_args[name] = given   # a type argument: `k<float4>`
            elif given is not None:
                consts[name] = given
            elif v is not None:
                consts[name] = v
        self.consts = consts
        self.out.constants = consts
        self.env: dict[str, Expr] = {}
        self.ptrs: dict[str, _Ptr] = {}
        self.types: dict[str, str] = {}
        self.saddr: dict[str, _Ptr] = {}    # integer shared addresses (`unsigned a = __cvta_generic_to_shared(p)`)
        self.lambdas: dict[str, object] = {}   # `auto f = [&](...) {...}`: lambda_expression nodes by name
        self.loops: list[Loop] = []
        self.guards: list[Expr] = []
        self.function_stack: list[str] = [kernel.name]
        self.returns: list[list[Expr]] = []
        self.counter = 0
        # basic blocks for the compiler's merging of shared accesses (analyzer/vectorize.py):
        # `breaks` counts what splits one (a branch, a barrier...); a loop whose walk left it as
        # it was, with a constant count, goes into `unrolled` (loop symbol -> trips, unrolled, lowest)
        self.breaks = 0
        self.unrolled: dict[str, tuple[int, int, int]] = {}
        self.pragmas = None     # unroll_pragmas of the file, made when first needed
        self.scope_ends = []    # where the blocks being walked end (the scopes of their locals)
        self.blocks: list[int] = []   # per access recorded, `breaks` then: its basic block
        self._sizes: list[int] = []   # per open loop: iterations of the nests unrolled in it
        self._tuples: dict[tuple, tuple] = {}
        self._assign_scans: list[tuple] = []    # (start, end, assignments) of each range queried
        arrays = {a.name: a for a in program.globals_}
        arrays.update({a.name: a for a in kernel.shared})
        self.arrays = arrays
        self.array_ptrs: dict[str, _Ptr] = {}
        # names whose first parameter is not a pointer (Function.param finds the first)
        self.scalar_params = set()
        seen_params = set()
        for prm in kernel.params:
            if prm.name not in seen_params and not prm.pointer:
                self.scalar_params.add(prm.name)
            seen_params.add(prm.name)
        for prm in kernel.params:
            self.types[prm.name] = prm.type + "*" * prm.pointer
            accessor = None if prm.pointer else self._accessor(prm.name, prm.type)
            if accessor is not None:
                self.ptrs[prm.name] = accessor
                self.scalar_params.discard(prm.name)
            elif prm.pointer:
                size = program.type_size(prm.type, self.type_args)
                if size is None:
                    size = 4
                    self._unbound_type(prm.type)
                # a pointer to rows (`float (*a)[W]`): a[i][j] is W elements a row
                dims = (None,) + tuple(self._pointee_dim(d) for d in prm.dims) if prm.dims else ()
                self.ptrs[prm.name] = _Ptr(prm.name, ("c", 0), self.resolve(prm.type), size, "global", dims)
            else:
                self.g.add_node(prm.name)

    def _pointee_dim(self, text: str):
        """A size of the rows a pointer parameter points to, as written (`W` of `float (*a)[W]`): its
        value, or its symbol (a size nothing gives: assumed), or None where it is an expression of
        unknowns."""
        v = eval_constant(text, self.consts)
        if type(v) is int:
            return v
        return ("s", text) if text.isidentifier() else None

    def _accessor(self, name: str, type_name: str) -> _Ptr | None:
        """A PyTorch tensor accessor parameter (`PackedTensorAccessor32<float, 2, RestrictPtrTraits>
        acc`, also 64, Generic..., TensorAccessor): global memory of its element type in as many
        dimensions, row-major and contiguous as a tensor made by `torch.empty` is, each dimension
        after the first of the size `acc.size(d)` (a value nobody gives: assumed, with a note).
        None for any other type."""
        m = _ACCESSOR.search(self.resolve(type_name))
        if m is None:
            return None
        elem, ndim = m.group(1).strip(), int(m.group(2))
        if not 1 <= ndim <= 8:
            return None
        size = self.size_of(elem)
        if size is None:
            size = 4
            self._unbound_type(elem)
        dims = (None,) + tuple(("s", f"{name}.size({d})") for d in range(1, ndim))
        return _Ptr(name, ("c", 0), self.resolve(elem), size, "global", dims)

    # -- helpers
    def text(self, node) -> str:
        """Program.text(node), here so that the walk's ~10^3 calls a file are direct calls, not
        Python calls of another object's method."""
        s = self.ascii
        if s is not None:
            return s[node.start_byte:node.end_byte]
        return self.p.text(node)

    def written(self, node) -> str:
        """A node's text as the file has it: a use of a macro the pre-pass expanded is quoted as
        written (`out[IDX(x, y, n)]`), not as expanded; a part of an expansion (an access in a
        statement macro's loop) as expanded, as the file has no text of its own for it."""
        p = self.p
        if not p.shifts:
            return self.text(node)
        inside = p.expansion_at(node.start_byte)
        if inside is not None and (node.start_byte != inside[0] or node.end_byte < inside[1]):
            return self.text(node)
        start, end = p.original_offset(node.start_byte), p.original_offset(node.end_byte)
        if end <= start:
            return self.text(node)
        return p.original[start:end].decode("utf-8", "replace")

    def _tuple(self, items: list) -> tuple:
        """tuple(items), one object for the same items (by identity): the accesses and branches
        of one block share their loops and guards, and the models' caches find them by identity
        before they hash them (the table keeps the items alive, so their ids stay theirs)."""
        key = tuple(map(id, items))
        got = self._tuples.get(key)
        if got is None:
            got = self._tuples[key] = tuple(items)
        return got

    def resolve(self, type_name: str) -> str:
        return self.p.resolve_type(type_name, self.type_args)

    def size_of(self, type_name: str) -> int | None:
        return self.p.type_size(type_name, self.type_args)

    def local_alias(self, node) -> None:
        """`using pack_t = uint4;` / `typedef float4 vec;` in a kernel's body: the name stands for
        the type from here on (the element size of `reinterpret_cast<const pack_t*>(p)[i]`)."""
        target, names = alias_of(node, self.text)
        for name in names:
            self.type_args[name] = target

    def sizeof(self, type_name: str) -> int | None:
        """`sizeof(type_name)`; a template's type parameter that no launch gives is taken as 4
        bytes, as its pointers' elements are (else `16 / sizeof(scalar_t)` would leave every
        index after it unknown), and a note says so."""
        size = self.size_of(type_name)
        if size:
            return size
        if self._unbound_type(type_name):
            return 4
        return None

    def _unbound_type(self, type_name: str) -> bool:
        """Whether `type_name` is a template type parameter no launch gives; the first time, a
        note says its size is taken as 4 bytes (sizeof, and its pointers' elements)."""
        name = self.resolve(type_name)
        if name not in self.k.template_params or self.k.template_params[name] is not None or name in self.consts \
                or self.size_of(name):
            return False
        note = f"template type {name} taken as 4 bytes: no launch in the file gives it"
        if note not in self.out.notes:
            self.out.notes.append(note)
        return True

    def fresh(self, name: str, line: int, deps: set[str]) -> Expr:
        """An opaque symbol that stands for a value the walk cannot follow exactly."""
        self.counter += 1
        sym = f"{name}@{line}#{self.counter}"
        self.g.add_node(sym)
        for d in deps:
            self.g.add_edge(d, sym)
        return ("s", sym)

    def bound(self, e: Expr, name: str, line: int) -> Expr:
        if S.larger_than(e, MAX_EXPR):
            return self.fresh(name, line, S.symbols(e))
        return e

    def _shared_scalar(self, name: str) -> bool:
        """`name` is a __shared__ scalar of this kernel (not shadowed by a local)."""
        a = self.arrays.get(name)
        return a is not None and a.space == "shared" and not a.dims and name not in self.types

    def _thread_dependent_now(self, e: Expr) -> bool:
        """Whether `e` depends on the thread, on the graph as walked so far (rare: shared scalar writes)."""
        syms = S.symbols(e)
        if not syms:
            return False
        for x in syms:
            if x.startswith("threadIdx"):
                return True
        reach: set[str] = set()
        for root in THREAD_ROOTS:
            if root in self.g.succ:
                reach.add(root)
                reach.update(self.g.descendants(root))
        for x in syms:
            if x in reach:
                return True
        return False

    def define(self, name: str, value: Expr, line: int) -> None:
        value = self.bound(value, name, line)
        self.env[name] = value
        node = f"{name}@{line}"
        syms = S.symbols(value)
        succ = self.g.succ
        for s in syms:   # DefUseGraph.add_edge(s, node), inlined (the same insertion order)
            got = succ.get(s)
            if got is None:
                got = succ[s] = set()
            got.add(node)
            if node not in succ:
                succ[node] = set()
        if not syms and node not in succ:
            succ[node] = set()

    # -- entry
    def run(self) -> None:
        self.block(self.k.body)

    # -- statements
    def block(self, node) -> None:
        compound = _KINDS[node.kind_id] == "compound_statement"
        children = list(node.named_children) if compound else [node]
        if compound:
            self.scope_ends.append(node.end_byte)
        i = 0
        while i < len(children):
            st = children[i]
            exits = self.statement(st)
            if exits is not None:
                self.after_exit(exits, children[i + 1:])
                break
            i += 1
        if compound:
            self.scope_ends.pop()

    def block_rest(self, statements) -> None:
        for j, st in enumerate(statements):
            exits = self.statement(st)
            if exits is not None:
                self.after_exit(exits, statements[j + 1:])
                return

    def after_exit(self, exits: Expr, rest) -> None:
        """The statements after `if (c) return;`, guarded by !c (an unknown c stays unknown)."""
        g = S.binop("==", exits, ("c", 0))
        self.out.exits.append(g)
        self.guards.append(g)
        self.block_rest(rest)
        self.guards.pop()

    def statement(self, st) -> Expr | None:
        """Walk one statement; returns the condition of an early exit (`if (c) return;`)."""
        t = _KINDS[st.kind_id]
        if t == "compound_statement":
            self.block(st)
        elif t == "declaration":
            self.declaration(st)
        elif t == "expression_statement":
            for c in st.named_children:
                if not self._template_declaration(c) and not self._macro_barrier(c):
                    self.expr(c)
                    if _KINDS[c.kind_id] == "call_expression":
                        self._macro_declared(c)
        elif t == "if_statement":
            return self.if_statement(st)
        elif t == "for_statement":
            self.for_statement(st)
        elif t in ("while_statement", "do_statement"):
            self.while_statement(st)
        elif t == "for_range_loop":
            self.for_range_loop(st)
        elif t == "return_statement":
            vals = [self.expr(c) for c in st.named_children]
            if self.returns and vals:
                self.returns[-1].append(vals[0])
        elif t in ("break_statement", "continue_statement", "goto_statement"):
            self.breaks += 1
        elif t in ("switch_statement",):
            self.breaks += 1
            cond = st.child_by_field_id(F_CONDITION)
            c = self.expr(cond) if cond is not None else S.UNKNOWN
            body = st.child_by_field_id(F_BODY)
            if body is not None:
                self.guards.append(self.fresh("switch", st.start_point[0] + 1, S.symbols(c)))
                self.with_assignments_opaque(body)
                self.guards.pop()
        elif t in ("case_statement", "labeled_statement"):
            for c in st.named_children:
                if _KINDS[c.kind_id].endswith("statement") or _KINDS[c.kind_id] == "declaration":
                    self.statement(c)
        elif t == "alias_declaration" or t == "type_definition":
            self.local_alias(st)
        elif t == "preproc_call" or t == "comment":
            pass
        elif t == "type_identifier" or t == "identifier":     # `SYNC_WARPS` with no `;`: a macro's name alone
            self._macro_barrier(st)
        elif t == "preproc_if" or t == "preproc_ifdef" or t == "preproc_elif":
            # the branch the compile takes (`#if 0`'s `#else`); undecided (a name from the command
            # line): the first, as a build without it would
            alt = st.child_by_field_id(F_ALTERNATIVE)
            if self.p.directive_holds(st) is False:
                if alt is not None:
                    self.statement(alt)
            else:
                self._directive_body(st, alt)
        elif t.startswith("preproc_"):
            self._directive_body(st, None)
        return None

    def _directive_body(self, st, alt) -> None:
        """The statements of a directive's branch (`#else`'s, `#define`'s...), not its alternative."""
        for c in st.named_children:
            k = _KINDS[c.kind_id]
            if k.endswith("statement") or k in ("declaration", "compound_statement") or (
                    k.startswith("preproc_if") and (alt is None or c != alt)):
                self.statement(c)

    def _macro_declared(self, call) -> None:
        """`GET_INDEX(i, n);`, a statement macro from an unseen header whose argument names a variable
        nothing declared before (it declares it: `const int i = ...;`): the variable's value is
        unknown, not a size of 4096 the same in every lane."""
        fn = call.child_by_field_id(F_FUNCTION)
        if fn is None or _KINDS[fn.kind_id] != "identifier":
            return
        name = self.text(fn)
        if not _MACRO_NAME.fullmatch(name) or self.p.function(name) is not None:
            return
        args = call.child_by_field_id(F_ARGUMENTS)
        for a in (args.named_children if args is not None else ()):
            if _KINDS[a.kind_id] != "identifier":
                continue
            var = self.text(a)
            if var in self.env or var in self.consts or var in self.scalar_params or var in self.ptrs \
                    or var in S.BUILTIN_SYMBOLS:
                continue
            self.define(var, S.UNKNOWN, call.start_point[0] + 1)

    def _macro_barrier(self, node) -> bool:
        """`SYNC_WARPS;` (or with no `;`, its definition holding one) or `CTA_SYNC();` as a
        statement, a macro's name in capitals defined in a header the analysis does not see:
        projects wrap `__syncwarp()` / `__syncthreads()` so (openmm, code shared with OpenCL, cub),
        and the race check must not read past it. Recorded as a barrier under the name as
        written, which the divergence check (block barriers only) leaves alone; a note says so.
        True where it was one."""
        kind = _KINDS[node.kind_id]
        fn = node.child_by_field_id(F_FUNCTION) if kind == "call_expression" else \
            node if kind == "identifier" or kind == "type_identifier" else None
        if fn is None or _KINDS[fn.kind_id] not in ("identifier", "type_identifier"):
            return False
        name = self.text(fn)
        if not _MACRO_BARRIER.fullmatch(name) or name in self.env or name in self.lambdas \
                or self.p.function(name) is not None:
            return False
        defined = re.search(rb"^[ \t]*#[ \t]*define[ \t]+" + name.encode() + rb"\b(.*)$", self.p.original, re.M)
        if defined is not None and not _BARRIER_WORD.search(defined.group(1)):
            return False      # the file defines it, as something other than a barrier
        if kind == "call_expression":
            args = node.child_by_field_id(F_ARGUMENTS)
            for a in (code_children(args) if args is not None else ()):
                self.expr(a)
        note = f"{name} taken as a barrier: " + (
            "its definition is not in the file" if defined is None else "its definition in the file holds one")
        if note not in self.out.notes:
            self.out.notes.append(note)
        self.barrier(name, node.start_point[0] + 1, node.start_point[1] + 1)
        return True

    def _template_declaration(self, node) -> bool:
        """`ns::tile_t<32> t = make();` read by the grammar as `(ns::tile_t < 32) > (t = make())` (it
        cannot know tile_t is a template): declares t with that type, as the code means. True
        where it did."""
        if _KINDS[node.kind_id] != "binary_expression":
            return False
        op, left, right = node.child_by_field_id(F_OPERATOR), node.child_by_field_id(F_LEFT), node.child_by_field_id(F_RIGHT)
        if op is None or left is None or right is None or self.text(op) != ">" or \
                _KINDS[left.kind_id] != "binary_expression" or _KINDS[right.kind_id] != "assignment_expression":
            return False
        lop, template, arg = left.child_by_field_id(F_OPERATOR), left.child_by_field_id(F_LEFT), left.child_by_field_id(F_RIGHT)
        name, aop, value = right.child_by_field_id(F_LEFT), right.child_by_field_id(F_OPERATOR), right.child_by_field_id(F_RIGHT)
        if lop is None or template is None or arg is None or self.text(lop) != "<" or \
                _KINDS[template.kind_id] not in ("identifier", "qualified_identifier") or name is None or \
                _KINDS[name.kind_id] != "identifier" or aop is None or self.text(aop) != "=" or value is None:
            return False
        var = self.text(name)
        self.types[var] = f"{self.text(template)}<{self.text(arg)}>"
        self.define(var, self.expr(value), node.start_point[0] + 1)
        return True

    def declaration(self, st) -> None:
        tnode = st.child_by_field_id(F_TYPE)
        base = self.text(tnode) if tnode is not None else "int"
        quals = {self.text(c) for c in st.children if _KINDS[c.kind_id] in ("type_qualifier", "storage_class_specifier")}
        if "__shared__" in quals or "__constant__" in quals:
            return  # recorded by the parser
        for decl in st.children_by_field_id(F_DECLARATOR):
            value_node = None
            if _KINDS[decl.kind_id] == "init_declarator":
                value_node = decl.child_by_field_id(F_VALUE)
                decl = decl.child_by_field_id(F_DECLARATOR)
            depth = 0
            dims: list[int | None] = []
            while decl is not None and _KINDS[decl.kind_id] in ("pointer_declarator", "array_declarator", "reference_declarator"):
                if _KINDS[decl.kind_id] == "pointer_declarator":
                    depth += 1
                elif _KINDS[decl.kind_id] == "array_declarator":
                    size = decl.child_by_field_id(F_SIZE)
                    v = self.const_value(size) if size is not None else None
                    dims.append(count(v))
                    if v is None and size is not None:
                        self.out.unsized_locals.append(size)
                decl = decl.child_by_field_id(F_DECLARATOR)
            if decl is None:
                continue
            name = self.text(decl)
            if self.scope_ends:
                self.out.declarations.append((name, decl.start_byte, self.scope_ends[-1]))
            line = st.start_point[0] + 1
            base = self.resolve(base)
            self.types[name] = base + "*" * depth
            if value_node is not None and not dims and (depth or base == "auto" or _braced_scalar(base, self.k)):
                value_node = _one_braced(value_node)    # `const int tx { threadIdx.x };`, `T *s { buf };`
            if base in DOUBLE_TYPES:
                self.out.uses_double = True
            if base in FLOAT_TYPES:
                self.out.uses_float = True
            if dims:
                size = self.size_of(base) or 4
                self.ptrs[name] = _Ptr(name, ("c", 0), self.resolve(base), size, "local", tuple(reversed(dims)))
                if value_node is not None:
                    self.expr(value_node)
                continue
            if depth:
                ptr = self.pointer(value_node) if value_node is not None else None
                if ptr is not None:
                    elem = self.resolve(base) if base not in ("auto",) else ptr.elem_type
                    size = self.size_of(elem) or ptr.elem_size
                    self.ptrs[name] = _Ptr(ptr.base, ptr.offset, elem, size, ptr.space)
                elif value_node is not None:
                    self.expr(value_node)
                continue
            if value_node is None:
                self.define(name, self.fresh(name, line, set()), line)
                continue
            if _KINDS[value_node.kind_id] in ("initializer_list", "argument_list"):
                for c in value_node.named_children:
                    self.expr(c)
                self.define(name, self.fresh(name, line, set()), line)
                continue
            if _KINDS[value_node.kind_id] == "lambda_expression":   # walked where it is called, with its arguments
                self.lambdas[name] = value_node
                continue
            ptr = self.pointer(value_node) if base == "auto" else None
            if ptr is not None:
                self.ptrs[name] = ptr
                continue
            if "cvta" in self.text(value_node):    # `unsigned a = __cvta_generic_to_shared(&s[r][c]);`: a shared address
                addr = self._shared_address(value_node)
                if addr is not None:
                    self.saddr[name] = addr
            if base == "auto" and _KINDS[value_node.kind_id] == "call_expression":
                fn = value_node.child_by_field_id(F_FUNCTION)
                if fn is not None and _group_of(self.text(fn) + "()") is not None:
                    self.types[name] = self.text(fn) + "()"     # `auto tile = cg::tiled_partition<32>(b)`
            elif base == "auto" and self._float_valued(value_node):
                self.types[name] = "float"      # `auto v = bbox[2];` of a float* (FP501: `1. - v` is FP32)
            self.define(name, self.expr(value_node), line)

    def if_statement(self, st) -> Expr | None:
        cond_node = st.child_by_field_id(F_CONDITION)
        cond = self.expr(cond_node) if cond_node is not None else S.UNKNOWN
        # a branch splits a basic block where it guards memory accesses or something that splits
        # one itself; arithmetic alone the compiler turns into selects (`if (t < n) acc += 1.f;`)
        mark, recorded = self.breaks, len(self.out.accesses)
        line, col = st.start_point[0] + 1, st.start_point[1] + 1
        self.out.branches.append(Branch(cond, line, col, self._tuple(self.loops), self._tuple(self.guards),
                                        self.text(cond_node) if cond_node is not None else "", st.end_point[0] + 1))
        then = st.child_by_field_id(F_CONSEQUENCE)
        alt = st.child_by_field_id(F_ALTERNATIVE)
        before = dict(self.env)
        self.guards.append(cond)
        if then is not None:
            self.statement(then)
        self.guards.pop()
        after_then = self.env
        self.env = dict(before)
        if alt is not None:
            self.guards.append(S.binop("==", cond, ("c", 0)))
            for c in alt.named_children:
                self.statement(c)
            self.guards.pop()
        after_else = self.env
        if (cond[0] != "c" and (self.breaks != mark or len(self.out.accesses) != recorded)
                and not self._unrolled_condition(cond)):
            self.breaks += 1
        # merge: a variable set differently on the two paths is cond ? a : b
        merged = dict(before)
        for name in set(after_then) | set(after_else):
            a = after_then.get(name, before.get(name))
            b = after_else.get(name, before.get(name))
            if a is None or b is None:
                merged[name] = a if b is None else b
            elif a == b:
                merged[name] = a
            else:
                merged[name] = self.bound(("?:", cond, a, b), name, line)
                for s in S.symbols(merged[name]):
                    self.g.add_edge(s, f"{name}@{line}")
        self.env = merged
        if alt is None and then is not None and self._ends_in_exit(then):
            return cond
        return None

    def _ends_in_exit(self, node) -> bool:
        if _KINDS[node.kind_id] == "return_statement":
            return True
        if _KINDS[node.kind_id] == "compound_statement":
            code = code_children(node)     # `return;  // out of range` ends it too
            return bool(code) and _KINDS[code[-1].kind_id] == "return_statement"
        return False

    def assigned_names(self, node) -> dict[str, list]:
        """name -> the assignment nodes to it inside `node` (for loop-carried variables).

        They are found from the text's operators (a Python walk over every node cost a tenth of
        the analysis), once per range: a nested loop's are read from its outer loop's answer. They
        are put in the order of a right-to-left pre-order walk, the order the fresh symbols
        were always numbered in."""
        start, end = node.start_byte, node.end_byte
        for s0, e0, outer in self._assign_scans:
            if s0 <= start and end <= e0:
                # inside a range queried before (an inner loop's body): its assignments are those
                # of the outer range that lie within this one, a query's answer without the query
                found = [f for f in outer if start <= f[1] and -f[0] <= end]
                break
        else:
            found = [(-n.end_byte, n.start_byte, n, target) for n, target in _assignments(node, self.p.source)]
            found.sort(key=_BY_END_START)
            self._assign_scans.append((start, end, found))
        out: dict[str, list] = {}
        for _, _, n, target in found:
            out.setdefault(self.text(target), []).append(n)
        return out

    def with_assignments_opaque(self, body) -> None:
        """Variables changed in a switch body are opaque there and after; walks the body."""
        changed = self.assigned_names(body)
        line = body.start_point[0] + 1
        for name in changed:
            if name in self.env:
                self.define(name, self.fresh(name, line, S.symbols(self.env[name])), line)
        self.block(body)
        for name in changed:
            if name in self.env:
                deps = S.symbols(self.env[name])
                self.define(name, self.fresh(name, line, deps), line)

    def for_statement(self, st) -> None:
        line = st.start_point[0] + 1
        init = st.child_by_field_id(F_INITIALIZER)
        var = None
        init_value: Expr = S.UNKNOWN
        if init is not None:
            if _KINDS[init.kind_id] == "declaration":
                decls = [d for d in init.children_by_field_id(F_DECLARATOR) if _KINDS[d.kind_id] == "init_declarator"]
                # `for (int k = 0, s = 0; k < n; k += 8, s ^= 1)`: the variable the condition compares
                # is the loop's, the others are variables of the loop like any (the update carries them)
                cond_first = st.child_by_field_id(F_CONDITION)
                compared = self._compared(cond_first) if len(decls) > 1 and cond_first is not None else None
                if len(decls) > 1 and compared is None:
                    # `for (int k = 0, cnt = 0; k < n && cnt < m; ++k)`: no one compared variable;
                    # the loop's is the one the update moves (else the first declared)
                    names = [self.text(d.child_by_field_id(F_DECLARATOR)) for d in decls
                             if d.child_by_field_id(F_DECLARATOR) is not None]
                    update_first = st.child_by_field_id(F_UPDATE)
                    moved = self.assigned_names(update_first) if update_first is not None else {}
                    compared = names[0] if names else None
                    for n in names:     # a loop, not a generator: Cython compiles no closure in a cpdef method
                        if n in moved:
                            compared = n
                            break
                for decl in decls:
                    name_node = decl.child_by_field_id(F_DECLARATOR)
                    value = decl.child_by_field_id(F_VALUE)
                    if name_node is not None and _KINDS[name_node.kind_id] == "identifier":
                        name = self.text(name_node)
                        self.out.declarations.append((name, name_node.start_byte, st.end_byte))
                        tnode = init.child_by_field_id(F_TYPE)
                        if compared is not None and name != compared:
                            self.types[name] = self.text(tnode) if tnode is not None else "int"
                            self.define(name, self.expr(value) if value is not None else S.UNKNOWN, line)
                            continue
                        var = name
                        init_value = self.expr(value) if value is not None else S.UNKNOWN
                        self.types[var] = self.text(tnode) if tnode is not None else "int"
            elif _KINDS[init.kind_id] == "assignment_expression":
                left = init.child_by_field_id(F_LEFT)
                if left is not None and _KINDS[left.kind_id] == "identifier":
                    var = self.text(left)
                    init_value = self.expr(init.child_by_field_id(F_RIGHT))
            else:
                self.expr(init)
        update = st.child_by_field_id(F_UPDATE)
        body = st.child_by_field_id(F_BODY)
        cond_node = st.child_by_field_id(F_CONDITION)
        if var is None and update is not None and cond_node is not None:
            # `for (; i < n; i += stride)`: the variable the condition compares and the update steps
            v = self._compared(cond_node)
            if v is not None and v in self.env and v not in self.ptrs and self._step(update, v) is not None:
                var, init_value = v, self.env[v]
        step = self._step(update, var) if update is not None else None
        changed = self.assigned_names(body) if body is not None else {}
        if var is not None and var in changed:
            step = None  # the body moves the induction variable too: no closed form
        if update is not None and (step is None or _KINDS[update.kind_id] == "comma_expression"):
            # the other variables the header's update moves (`++i, p += stride`): carried as well
            # (an update that steps var alone, nearly every loop's, moves nothing else)
            for name, nodes in self.assigned_names(update).items():
                if name != var:
                    changed.setdefault(name, []).extend(nodes)
        self._loop(cond_node, line, var, init_value, step, body, update, changed, "for")

    def _loop(self, cond_node, line: int, var: str | None, init_value: Expr, step, body, update, changed: dict,
              kind: str, stepped=None) -> None:
        """Walks a loop given its condition, induction variable (None: none known), its value at the
        start, step, body, for-header update and the variables it changes (for_statement,
        while_statement). stepped: where the condition steps the variable (`while (j++ < n)`),
        _stepped_test's (operator, bound node, offset, step before the body)."""
        loop_sym = f"{var}@{line}" if var else None
        iter_sym = f"iter@{line}"
        self.g.add_node(iter_sym)
        if var is not None:
            for s in S.symbols(init_value):
                self.g.add_edge(s, loop_sym)
            if step is not None:
                for s in S.symbols(step[1]):
                    self.g.add_edge(s, loop_sym)
        saved = self.env.get(var) if var else None
        if var is not None:
            self.env[var] = ("s", loop_sym)
        # Loop-carried variables (`acc += x`, `p += stride`) get an opaque symbol inside the loop,
        # or, for a loop-invariant increment, value0 + iter * increment.
        carried = self._carried(changed, var, line, iter_sym, body, update)
        if stepped is None:
            cond = self.expr(cond_node) if cond_node is not None else None
        else:
            # the test as a comparison of the value the iteration starts with (the trip count's
            # form), and the body at the value it sees
            op, right, offset, after = stepped
            cond = ("b", op, ("s", loop_sym), S.binop("-", self.expr(right), offset))
            self.env[var] = S.binop("+", ("s", loop_sym), after)
        if var is not None and cond is not None:
            for s in S.symbols(cond):
                if s != loop_sym:
                    self.g.add_edge(s, loop_sym)
        loop = Loop(loop_sym, init_value, cond, step, line, kind, iter_sym)
        mark = self.breaks
        self._sizes.append(1)
        self.loops.append(loop)
        if cond is not None:
            self.guards.append(cond)
        if body is not None:
            self.statement(body)
        if update is not None:
            self.expr(update)
        if cond is not None:
            self.guards.pop()
        self.loops.pop()
        self._note_unrolled(mark, loop_sym, init_value, cond, step, line)
        trips = None
        for _, closed in carried:
            if closed is not None:
                trips = self._constant_trips(var, init_value, cond, step, loop_sym, body)
                break
        for name, closed in carried:
            if closed is not None and trips is not None:
                # after a loop of a known count, the closed form at that count (`offset` after a
                # scan's up-sweep: 1 << 8)
                self.define(name, S.substitute(closed, {iter_sym: ("c", trips)}), line)
            else:
                self.define(name, self.fresh(name, line, S.symbols(self.env.get(name, S.UNKNOWN)) | {iter_sym}), line)
        if var is not None:
            if saved is not None:
                self.env[var] = self.fresh(var, line, {loop_sym})
            else:
                self.env.pop(var, None)

    def _note_unrolled(self, mark: int, loop_sym, init, cond, step, line: int) -> None:
        """After a loop's walk: into `unrolled` where the compiler unrolls it into one basic block
        (nothing in it split one, a constant count from a constant start by 1); else it splits
        the blocks of the loops around it (a loop it does not unroll whole branches back)."""
        inner = self._sizes.pop()     # iterations of the largest loop nest unrolled inside
        counted = _counted_trips(loop_sym, init, cond, step)
        if counted is None:
            self.breaks += 1
            return
        trips, lowest = counted
        if self.pragmas is None:
            self.pragmas = unroll_pragmas(self.p.original, self.consts)
        factor = unroll_factor(trips, self.pragmas.get(line), inner)
        if factor > 1 and self.breaks == mark:
            self.unrolled[loop_sym] = (trips, factor, lowest)
        if factor < trips:
            self.breaks += 1
        elif self._sizes:
            self._sizes[-1] = max(self._sizes[-1], trips * inner)

    def _carried(self, changed: dict[str, list], var: str | None, line: int, iter_sym: str, body,
                 update) -> list[tuple]:
        """The loop-carried variables (name, value at an iteration's start in terms of `iter_sym`,
        or None where it has no closed form); their values in `env` for the walk of the body.
        A closed form needs the one update to run once in every iteration: a statement of the
        loop's `body` itself, not under a condition or an inner loop, and no `continue` that
        could skip it; or a part of a for loop's `update` (which a `continue` does not skip)."""
        carried = []
        skips = None    # whether a `continue` may skip the body's updates: looked up when one is asked about
        for name, nodes in changed.items():
            if name == var:
                continue
            once = False
            if len(nodes) == 1:
                n = nodes[0]
                if update is not None and update.start_byte <= n.start_byte and n.end_byte <= update.end_byte:
                    once = _once_per_iteration(n, update)
                else:
                    if skips is None:
                        skips = body is None or self._continues(body)
                    once = not skips and _once_per_iteration(n, body)
            if name in self.ptrs:
                inc = self._pointer_increment(nodes) if once else None
                if inc is not None and (body_locals := self._body_locals(inc)):
                    # moved by a local of the body (Caffe's grid-stride `int offset = ...; in += offset;`):
                    # each pass read as the first, from the pointer's start, not offset=4096 a pass
                    inc = S.substitute(inc, {s: ("c", 0) for s in body_locals})
                ptr = self.ptrs[name]
                if inc is not None:
                    offset = S.binop("+", ptr.offset, S.binop("*", ("s", iter_sym), S.binop("*", inc, ("c", ptr.elem_size))))
                else:   # moved in the loop in a way the walk cannot follow: opaque inside it
                    offset = self.fresh(name, line, S.symbols(ptr.offset) | {iter_sym})
                self.ptrs[name] = _Ptr(ptr.base, offset, ptr.elem_type, ptr.elem_size, ptr.space, ptr.dims)
                continue
            if name not in self.env:
                continue
            old = self.env[name]
            inc = self._invariant_increment(nodes, changed) if once else None
            if inc is not None and self._body_locals(inc):
                inc = None      # stepped by a local of the body: no closed form (was a parameter of 4096)
            shift = self._invariant_shift(nodes, changed) if inc is None and once else None
            if inc is not None or shift is not None:
                if inc is not None:
                    value = S.binop("+", old, S.binop("*", ("s", iter_sym), inc))
                elif shift[0] == "^":   # `stage ^= 1` (a double buffer's): value0 ^ (k * (iter & 1))
                    value = S.binop("^", old, S.binop("*", shift[1], S.binop("&", ("s", iter_sym), ("c", 1))))
                else:   # `offset <<= 1` (a scan's stride): value0 << (iter * 1)
                    value = S.binop(shift[0], old, S.binop("*", ("s", iter_sym), shift[1]))
                self.env[name] = self.bound(value, name, line)
                for s in S.symbols(self.env[name]):
                    self.g.add_edge(s, f"{name}@{line}")
                carried.append((name, self.env[name]))
            else:
                carried.append((name, None))
                deps = set(S.symbols(old))
                for n in nodes:
                    right = n.child_by_field_id(F_RIGHT)
                    if right is not None:
                        deps |= S.symbols(self.expr_quiet(right))
                self.define(name, self.fresh(name, line, deps), line)
        return carried

    def _continues(self, body) -> bool:
        """Whether a `continue` in `body` belongs to this loop (not to a loop nested in it)."""
        source, start, end = self.p.source, body.start_byte, body.end_byte
        if source.find(b"continue", start, end) < 0:     # no copy of the body: most loops have none
            return False
        for m in _CONTINUE.finditer(source, start, end):
            n = body.descendant_for_byte_range(m.start(), m.end())
            while n is not None and _KINDS[n.kind_id] == "continue":
                n = n.parent     # the keyword's token: its statement
            if n is None or _KINDS[n.kind_id] != "continue_statement":
                continue    # the word in a comment or a string
            while n is not None and _KINDS[n.kind_id] not in _LOOPS:
                if n == body:
                    return True     # no loop between it and this loop's body
                n = n.parent
            if n is None:
                return True
        return False

    def _constant_trips(self, var, init, cond, step, loop_sym, body) -> int | None:
        """How many times a loop runs when its start, bound and step are constants (after folding
        `#define`s and template arguments) and nothing in its body leaves it early, else None."""
        if var is None or cond is None or step is None or body is None or init[0] != "c" or step[1][0] != "c":
            return None
        v, inc, op = init[1], step[1][1], step[0]
        if type(v) is not int or type(inc) is not int or S.symbols(cond) != {loop_sym}:
            return None
        if op not in ("+=", "-=", "*=", "<<=", ">>="):
            return None
        if _EARLY_EXIT.search(self.text(body)):
            return None     # a break, return or goto: the count depends on the data
        env: dict = {}
        for n in range(_MAX_CONSTANT_TRIPS + 1):
            env[loop_sym] = v
            c = S.evaluate(cond, env)
            if c is None:
                return None
            if not c:
                return n
            v = S._apply(op[:-1], v, inc)    # C's arithmetic on the scalars (a shift out of range: None)
            if v is None or not -S.INT64_LIMIT <= v < S.INT64_LIMIT:
                return None
        return None

    def _invariant_increment(self, nodes, changed) -> Expr | None:
        if len(nodes) != 1:
            return None
        n = nodes[0]
        if _KINDS[n.kind_id] == "update_expression":
            return ("c", 1 if _incdec(n) == "++" else -1)
        op = n.child_by_field_id(F_OPERATOR)
        right = n.child_by_field_id(F_RIGHT)
        if op is None or right is None or self.text(op) not in ("+=", "-="):
            return None
        inc = self._invariant_value(right, changed)
        if inc is None:
            return None
        return inc if self.text(op) == "+=" else S.binop("-", ("c", 0), inc)

    def _invariant_value(self, right, changed) -> Expr | None:
        """The value of a loop's step expression, or None where it may change in the loop: it
        names a variable the loop assigns (`s += s`: that variable's value before the loop, a
        constant maybe, says nothing) or its value is unknown or depends on one."""
        if _names_any(right, changed):
            return None
        v = self.expr_quiet(right)
        if S.is_unknown(v):
            return None
        for s in S.symbols(v):
            if s.split("@")[0] in changed:
                return None
        return v

    def _invariant_shift(self, nodes, changed) -> tuple[str, Expr] | None:
        """("<<", k) or (">>", k) for a variable that one `x <<= k` or `x >>= k` with a
        loop-invariant k changes in the loop (`x *= 2**m` is `x <<= m`); ("^", c) for `x ^= c`
        with a constant c (a toggle); else None."""
        if len(nodes) != 1 or _KINDS[nodes[0].kind_id] != "assignment_expression":
            return None
        n = nodes[0]
        op = n.child_by_field_id(F_OPERATOR)
        right = n.child_by_field_id(F_RIGHT)
        if op is None or right is None:
            return None
        o = self.text(op)
        if o not in ("<<=", ">>=", "*=", "^="):
            return None
        k = self._invariant_value(right, changed)
        if k is None:
            return None
        if o == "^=":       # a toggle: ("^", k), which _carried gives as value0 ^ (k * (iter & 1))
            return ("^", k) if k[0] == "c" and type(k[1]) is int else None
        if o == "*=":
            v = k[1] if k[0] == "c" else None
            if type(v) is not int or v < 1 or v & (v - 1):
                return None     # only a power of two is a shift
            return ("<<", ("c", v.bit_length() - 1))
        return (o[:2], k)

    def _body_locals(self, e: Expr) -> list[str]:
        """The names in `e` that no value reached at a loop's start but that the file declares as
        variables: locals the loop's body declares, a new value each pass (not parameters)."""
        return [s for s in S.symbols(e) if "@" not in s and "." not in s and s not in self.scalar_params
                and s not in self.consts and _declared_local(self.p.source, s)]

    def _pointer_increment(self, nodes) -> Expr | None:
        return self._invariant_increment(nodes, {})

    def _step(self, update, var: str | None) -> tuple[str, Expr] | None:
        if var is None:
            return None
        if _KINDS[update.kind_id] == "update_expression":
            arg = update.child_by_field_id(F_ARGUMENT)
            if arg is not None and self.text(arg) == var:
                return ("+=", ("c", 1 if _incdec(update) == "++" else -1))
        if _KINDS[update.kind_id] == "assignment_expression":
            left = update.child_by_field_id(F_LEFT)
            op = update.child_by_field_id(F_OPERATOR)
            right = update.child_by_field_id(F_RIGHT)
            if left is not None and self.text(left) == var and op is not None and right is not None:
                o = self.text(op)
                value = self.expr_quiet(right)
                if o in ("+=", "-=", "*=", "/=", "<<=", ">>="):
                    return (o, value)
                if o == "=" and _KINDS[right.kind_id] == "binary_expression":
                    # i = i + k
                    l2 = right.child_by_field_id(F_LEFT)
                    r2 = right.child_by_field_id(F_RIGHT)
                    bop = right.child_by_field_id(F_OPERATOR)
                    if l2 is not None and self.text(l2) == var and bop is not None and r2 is not None:
                        return (self.text(bop) + "=", self.expr_quiet(r2))
        if _KINDS[update.kind_id] == "comma_expression":
            # `++i, p += stride`: the step of the one part that moves var
            nodes = self.assigned_names(update).get(var, ())
            if len(nodes) == 1 and nodes[0] != update and _once_per_iteration(nodes[0], update):
                return self._step(nodes[0], var)
        return None

    def while_statement(self, st) -> None:
        self.breaks += 1      # not unrolled (a counted while loop is rare): a branch
        line = st.start_point[0] + 1
        body = st.child_by_field_id(F_BODY)
        cond_node = st.child_by_field_id(F_CONDITION)
        changed = self.assigned_names(st)
        kind = "while" if _KINDS[st.kind_id] == "while_statement" else "do"
        if body is not None and cond_node is not None:
            counter = self._while_counter(cond_node, changed, body)
            if counter is not None:
                # `while (i < n) { ...; i += stride; }` is `for (; i < n; ) { ...; i += stride; }`
                # with i its induction variable. `do { ...; i += stride; } while (i < n);` is counted
                # the same: the same iterations wherever the condition holds at the start (the first,
                # which a do runs whatever the condition, is not forced where it does not).
                # `while (j++ < n)` steps j in its condition (_stepped_test)
                var, step, stepped = counter
                init_value = self.env[var]
                del changed[var]
                self._loop(cond_node, line, var, init_value, step, body, None, changed, kind,
                           self._stepped_test(stepped, step[1], kind) if stepped is not None else None)
                return
        self._loop(cond_node, line, None, S.UNKNOWN, None, body, None, changed, kind)

    def for_range_loop(self, st) -> None:
        """`for (auto const& e : items) { ... }` (a cuda::std::array, a local array): a loop of a
        count the walk does not read, whose element is a value it cannot follow (the body was not
        walked at all: its accesses went uncounted)."""
        self.breaks += 1      # not unrolled: a branch, as an uncounted while loop
        line = st.start_point[0] + 1
        items = st.child_by_field_id(F_RIGHT)
        deps = S.symbols(self.expr(items)) if items is not None else set()
        decl = st.child_by_field_id(F_DECLARATOR)
        while decl is not None and _KINDS[decl.kind_id] in ("reference_declarator", "pointer_declarator"):
            decl = decl.named_children[-1] if decl.named_children else None
        name = self.text(decl) if decl is not None and _KINDS[decl.kind_id] == "identifier" else None
        saved = self.env.get(name) if name else None
        if name:
            self.define(name, self.fresh(name, line, deps), line)
        body = st.child_by_field_id(F_BODY)
        changed = self.assigned_names(body) if body is not None else {}
        self._loop(None, line, None, S.UNKNOWN, None, body, None, changed, "for")
        if name:
            if saved is not None:
                self.env[name] = saved
            else:
                self.env.pop(name, None)

    def _while_counter(self, cond_node, changed: dict, body) -> tuple | None:
        """(name, step, whether the condition steps it) of the variable a while loop's condition
        compares (`i < n`, `i != end`; `j++ < n`, `--j >= 0`) when the loop changes it once in
        every iteration by a loop-invariant amount: in the body, or in the condition as the compared
        operand (run once an iteration, `continue` or not); else None."""
        left = self._compared_operand(cond_node)
        stepped = None
        if left is not None and _KINDS[left.kind_id] == "update_expression":
            stepped, left = left, left.child_by_field_id(F_ARGUMENT)
        if left is None or _KINDS[left.kind_id] != "identifier":
            return None
        var = self.text(left)
        nodes = changed.get(var)
        if not nodes or len(nodes) != 1 or var in self.ptrs or var not in self.env:
            return None
        if stepped is not None:
            if nodes[0] != stepped:
                return None
        elif not _once_per_iteration(nodes[0], body) or self._continues(body):
            return None
        inc = self._invariant_increment(nodes, changed)
        return None if inc is None else (var, ("+=", inc), stepped)

    def _stepped_test(self, stepped, inc: Expr, kind: str) -> tuple:
        """(operator, bound node, offset, step before the body) of a loop condition that steps the
        variable it compares by `inc` (`stepped`, its update expression): the test is `start +
        offset <op> bound`, where start is the variable's value as an iteration starts, and the body
        sees start + that step. `while (j++ < n)` tests start and leaves start + inc to the body,
        `while (++j < n)` tests start + inc; a do's body runs first, with start, where the previous
        iteration's test held: `do {...} while (j++ < n)` at start - inc, `while (++j < n)` at start."""
        comparison = stepped.parent
        op = self.text(comparison.child_by_field_id(F_OPERATOR))
        right = comparison.child_by_field_id(F_RIGHT)
        zero = ("c", 0)
        if kind == "do":
            return op, right, zero if _prefix(stepped) else S.binop("-", zero, inc), zero
        return op, right, inc if _prefix(stepped) else zero, inc

    def _compared(self, cond_node) -> str | None:
        """The variable a loop condition compares (`i < n`, `(i != end)`), else None."""
        left = self._compared_operand(cond_node)
        return self.text(left) if left is not None and _KINDS[left.kind_id] == "identifier" else None

    def _compared_operand(self, cond_node):
        """The left operand of a loop condition's comparison (`i` of `(i < n)`), else None."""
        c = cond_node
        while _KINDS[c.kind_id] in ("condition_clause", "parenthesized_expression"):
            inner = code_children(c)
            if len(inner) != 1:
                return None
            c = inner[0]
        if _KINDS[c.kind_id] != "binary_expression":
            return None
        left, op = c.child_by_field_id(F_LEFT), c.child_by_field_id(F_OPERATOR)
        if left is None or op is None or self.text(op) not in ("<", "<=", ">", ">=", "!="):
            return None
        return left

    def _group(self, node) -> tuple | None:
        """The cooperative group a name or call denotes: ("block", 0) for `this_thread_block()`,
        ("grid", 0) for `this_grid()`, ("tile", n) for `tiled_partition<n>(...)`, else None. A
        name's group comes from its declared type, or for `auto` from its initializer."""
        t = _KINDS[node.kind_id]
        if t == "identifier":
            return _group_of(self.types.get(self.text(node), ""))
        if t == "call_expression":
            fn = node.child_by_field_id(F_FUNCTION)
            return _group_of(self.text(fn) + "()") if fn is not None else None
        return None

    # -- expressions
    def const_value(self, node):
        e = self.expr_quiet(node)
        return e[1] if e[0] == "c" else None

    def expr_quiet(self, node) -> Expr:
        """Value of an expression without recording the accesses in it (they are recorded elsewhere)."""
        saved = (len(self.out.accesses), len(self.out.events), len(self.out.float_literals), len(self.out.branches),
                 len(self.out.double_calls), self.out.flops_per_thread, len(self.out.mmas))
        # its loads are not recorded, so none may stand for a later one: a map of its own (the
        # expression is walked for real where it stands, with that walk's reuse)
        loaded, self.loaded = self.loaded, {}
        try:
            return self.expr(node)
        finally:
            self.loaded = loaded
            del self.out.accesses[saved[0]:]
            del self.out.events[saved[1]:]
            del self.out.float_literals[saved[2]:]
            del self.out.branches[saved[3]:]
            del self.out.double_calls[saved[4]:]
            self.out.flops_per_thread = saved[5]
            del self.out.mmas[saved[6]:]

    def expr(self, node) -> Expr:
        if node is None:
            return S.UNKNOWN
        t = _KINDS[node.kind_id]
        if t == "number_literal":
            return self.number(node)
        if t == "identifier":
            name = self.text(node)
            if name in self.env:
                return self.env[name]
            if name in self.consts:
                return ("c", self.consts[name])
            if name == "warpSize":
                return ("c", 32)
            if name in _MATH_CONSTANTS and name not in self.scalar_params and name not in self.ptrs:
                # math.h's `M_PI`: a double, which makes float arithmetic around it FP64 (FP501)
                self._float_literal(node, name, _MATH_CONSTANTS[name])
                return ("c", _MATH_CONSTANTS[name])
            if name in self.scalar_params:
                return ("s", name)
            return ("s", name) if name not in self.ptrs else S.UNKNOWN
        if t == "field_expression":
            return self.field(node)
        if t in ("parenthesized_expression", "condition_clause"):
            inner = code_children(node)
            return self.expr(inner[-1]) if inner else S.UNKNOWN
        if t == "binary_expression":
            return self.binary(node)
        if t == "unary_expression":
            op = node.child_by_field_id(F_OPERATOR)
            arg = self.expr(node.child_by_field_id(F_ARGUMENT))
            o = self.text(op) if op is not None else "-"
            if arg[0] == "c":
                v = S._unary(o, arg[1])
                if v is not None:
                    return ("c", v)
            return ("u", o, arg)
        if t == "conditional_expression":
            c = self.expr(node.child_by_field_id(F_CONDITION))
            before = len(self.out.accesses)
            self.guards.append(c)
            a = self.expr(node.child_by_field_id(F_CONSEQUENCE))
            self.guards.pop()
            self.guards.append(S.binop("==", c, ("c", 0)))
            b = self.expr(node.child_by_field_id(F_ALTERNATIVE))
            self.guards.pop()
            if len(self.out.accesses) != before:
                self.breaks += 1    # an arm that accesses memory is a branch (a select otherwise)
            return ("?:", c, a, b)
        if t == "cast_expression":
            tnode = node.child_by_field_id(F_TYPE)
            value = node.child_by_field_id(F_VALUE)
            ttext = self.text(tnode) if tnode is not None else ""
            v = self.expr(value)
            if ttext.strip() in DOUBLE_TYPES:
                self.out.uses_double = True
            return v
        if t == "subscript_expression" or (t == "pointer_expression" and self._op(node) == "*"):
            return self.load(node)
        if t == "pointer_expression":  # &x: an address, not an access
            self.pointer(node)
            return S.UNKNOWN
        if t == "assignment_expression":
            return self.assignment(node)
        if t == "update_expression":
            return self.update(node)
        if t == "call_expression":
            return self.call(node)
        if t == "gnu_asm_expression":
            self._asm(node)
            return S.UNKNOWN
        if t == "comma_expression":
            left = node.child_by_field_id(F_LEFT)
            right = node.child_by_field_id(F_RIGHT)
            self.expr(left)
            return self.expr(right)
        if t in ("sizeof_expression",):
            tnode = node.child_by_field_id(F_TYPE)
            if tnode is not None:
                size = self.sizeof(self.text(tnode))
                if size:
                    return ("c", size)
            value = node.child_by_field_id(F_VALUE)
            if value is not None:
                # `sizeof(float4)`: the grammar reads a type it does not know as a parenthesized
                # name; a type it is where no variable of the kernel has that name
                name = self.text(value).strip("() \t")
                if name.isidentifier() and name not in self.env and name not in self.types and name not in self.ptrs:
                    size = self.sizeof(name)
                    if size:
                        return ("c", size)
            return S.UNKNOWN
        if t in ("true", "false"):
            return ("c", 1 if t == "true" else 0)
        if t in ("initializer_list", "argument_list"):
            for c in node.named_children:
                self.expr(c)
            return S.UNKNOWN
        if t in ("char_literal", "string_literal", "concatenated_string", "null", "nullptr"):
            return S.UNKNOWN
        for c in node.named_children:
            self.expr(c)
        return S.UNKNOWN

    def _misread_comparison(self, template, right) -> Expr | None:
        """The value of `(i < n && j >= 0)`, which the grammar reads inside parentheses as the
        assignment `i<n && j> = 0` to a template function (a C++ ambiguity), when `i` is a
        variable: `n && j` between the angle brackets, `0` after `=`. C's precedence puts `i <` on
        the leftmost and `>= 0` on the rightmost operand below && || == != & | ^. None where the
        template is not a comparison read wrongly. A condition before it (`(a >= 0 && i < n && j >= 0)`)
        comes as the assignment's left side `a >= 0 && i<n && j>`: the template is its rightmost operand."""
        if _KINDS[template.kind_id] == "binary_expression":
            op = self._op(template)
            if op not in _BELOW_RELATIONAL:
                return None
            inner = self._misread_comparison(template.child_by_field_id(F_RIGHT), right)
            return None if inner is None else _left_join(op, self.expr(template.child_by_field_id(F_LEFT)), inner)
        if _KINDS[template.kind_id] != "template_function":
            return None
        return self._misread_template(template, right, b">=")

    def _misread_template(self, template, right, closing: bytes) -> Expr | None:
        """A template function `i<...>` that is a comparison read wrongly: `i` a variable, one
        expression between the angle brackets, and the closing `>` followed by the rest of the
        operator `closing` names (`>=`: _misread_comparison; `>>`: a shift, `i < n && j >> 1`)."""
        name, args = template.child_by_field_id(F_NAME), template.child_by_field_id(F_ARGUMENTS)
        if name is None or args is None or _KINDS[name.kind_id] != "identifier":
            return None
        var = self.text(name)
        if var not in self.env and var not in self.consts and var not in self.types:
            return None      # not a variable: a real template
        if self.p.source[args.end_byte - 1:args.end_byte + 1] != closing:
            return None
        parts = code_children(args)
        if len(parts) != 1:
            return None
        return self._relink(parts[0], self.expr(name), right, True, True, closing == b">>")

    def _relink(self, node, left_value, right, first: bool, last: bool, shift: bool) -> Expr:
        if _KINDS[node.kind_id] == "binary_expression":
            op = self._op(node)
            if op in _BELOW_RELATIONAL:
                a = self._relink(node.child_by_field_id(F_LEFT), left_value, right, first, False, shift)
                b = self._relink(node.child_by_field_id(F_RIGHT), left_value, right, False, last, shift)
                return _left_join(op, a, b)
        v = self.expr(node)
        if first:
            v = S.binop("<", left_value, v)
        if last:
            v = S.binop(">>", v, self.expr(right)) if shift else self._greater_equal(v, right)
        return v

    def _greater_equal(self, value, right) -> Expr:
        """`value >= right`, where `right` is the rest of a misread comparison (`0 && j < m`)."""
        if _KINDS[right.kind_id] == "binary_expression":
            op = self._op(right)
            if op in _BELOW_RELATIONAL:
                return S.binop(op, self._greater_equal(value, right.child_by_field_id(F_LEFT)),
                               self.expr(right.child_by_field_id(F_RIGHT)))
        return S.binop(">=", value, self.expr(right))

    def _op(self, node) -> str:
        op = node.child_by_field_id(F_OPERATOR)
        return self.text(op) if op is not None else ""

    def number(self, node) -> Expr:
        raw = self.text(node)
        txt = raw.lower().rstrip("ul")
        try:
            if txt.startswith("0x"):
                return ("c", int(txt, 16))
            if txt.startswith("0b"):
                return ("c", int(txt, 2))
            if ("." in txt or "e" in txt) and not txt.startswith("0x") or txt.endswith("f"):
                is_float = txt.endswith("f")
                value = float(txt.rstrip("f"))
                if not is_float:
                    self._float_literal(node, raw, value)
                return ("c", value)
            if len(txt) > 1 and txt.startswith("0") and txt.isdigit():
                return ("c", int(txt, 8))
            return ("c", int(txt))
        except ValueError:
            return S.UNKNOWN

    def _float_literal(self, node, raw: str, value: float) -> None:
        """Record a double literal (or math.h's `M_PI`) for FP501, with what it is part of: whether
        the compiler folds it (`1.0 / 3` stored), narrows it to FP32, or it stands alone."""
        parent, top = node.parent, node
        while parent is not None and _KINDS[parent.kind_id] in _CONSTANT_ARITHMETIC and \
                not _NAME_IN.search(_NUMBER_IN.sub("", self.text(parent))):
            top, parent = parent, parent.parent
        folded = top is not node and (parent is None or _KINDS[parent.kind_id] not in _CONSTANT_ARITHMETIC)
        # a value passed as it is (`vec3 c(a + 1.0f, 0.2, a)`, `{0.5, x * 2}`) sits in no
        # arithmetic, whatever its neighbours do: its context is itself
        alone = parent is None or (top is node and (_KINDS[parent.kind_id] in _VALUE_LISTS or (
            # stored as it is (`temp[b * n + j] = 1e38;`): converted at compile time, whatever
            # the index's arithmetic
            _KINDS[parent.kind_id] == "assignment_expression" and self._op(parent) == "="
            and parent.child_by_field_id(F_RIGHT) == node)))
        self.out.float_literals.append(FloatLiteral(raw, node.start_point[0] + 1, node.start_point[1] + 1,
                                                    raw if alone else self.text(parent), folded,
                                                    not folded and self._narrowed(node, value)))

    def _narrowed(self, node, value: float) -> bool:
        """Whether nvcc does a double literal's arithmetic in FP32 (checked on its PTX, CUDA 13):
        one branch of a `?:`, or one operand of a `+ - * /` with a truth value (`(x > 0) + .1`),
        whose result becomes a float at once (assigned or returned as one, passed to `expf`,
        cast); or, the literal exact in float, one operand of a comparison, of a compound
        assignment to a float, or of one `+ - * /` with a float whose result becomes a float at
        once. A chain (`0.5 * x * y`, `y += x * 0.5`), an int operand (`i * 0.5`) or an inexact
        literal (`x * 0.1`) stays FP64 (tests/test_fp501_nvcc.py holds the cases)."""
        child, parent = _unparenthesized_parent(node)
        if parent is None:
            return False
        kind = _KINDS[parent.kind_id]
        if kind == "conditional_expression":   # a select: the float it yields is rounded at compile time
            return parent.child_by_field_id(F_CONDITION) != child and self._to_float(parent)
        exact = value == value and abs(value) != float("inf") and _f32(value) == value
        if kind == "binary_expression":
            op = self._op(parent)
            if op in _COMPARISONS:
                return exact
            left = parent.child_by_field_id(F_LEFT)
            other = parent.child_by_field_id(F_RIGHT) if left == child else left
            if op in _NARROWING_OPS and other is not None and self._vector_valued(other):
                return True     # `v * M_SQRT1_2` of a float2: the file's operator takes a float, converted once
            if op not in _NARROWING_OPS or other is None or not self._to_float(parent):
                return False
            # a truth value's two results are constants, rounded at compile time
            return _truth_valued(other) or (exact and self._float_valued(other))
        if not exact:
            return False
        if kind == "assignment_expression":
            left = parent.child_by_field_id(F_LEFT)
            return (self._op(parent) in ("+=", "-=", "*=", "/=") and left is not None and left != child
                    and self._float_valued(left))
        return False

    def _vector_valued(self, node) -> bool:
        """Whether an expression is a CUDA float vector (`v[5] * w` of `float2* v`): arithmetic on one
        is an operator the file defines, whose scalar parameter takes a constant converted once."""
        k = _KINDS[node.kind_id]
        if k == "parenthesized_expression":
            inner = code_children(node)
            return bool(inner) and self._vector_valued(inner[-1])
        if k == "binary_expression":
            left, right = node.child_by_field_id(F_LEFT), node.child_by_field_id(F_RIGHT)
            return (left is not None and self._vector_valued(left)) or (right is not None and self._vector_valued(right))
        if k == "call_expression":
            fn = node.child_by_field_id(F_FUNCTION)
            return fn is not None and self.text(fn) in _MAKE_VECTORS
        pointers = 0
        if k == "subscript_expression":     # `v[i]` of `float2* v` (not `v[i].x`, a field_expression: a float)
            node, pointers = node.child_by_field_id(F_ARGUMENT), 1
            if node is None:
                return False
        if _KINDS[node.kind_id] != "identifier":
            return False
        t = self.types.get(self.text(node), "").replace("const", "").replace("&", "").strip()
        return t.count("*") == pointers and t.rstrip("* ").split(" ")[-1] in _FLOAT_VECTORS

    def _float_valued(self, node) -> bool:
        """Whether an expression's C type is float: a float name, element or call in it, and no
        double literal or cast to double or int (outside the arguments of float calls, which
        yield a float whatever they are given)."""
        t = self._float_calls_blanked(node)
        if _DOUBLE_LITERAL.search(t) or "double" in t or "(int)" in t:
            return False
        if _FLOAT_LEAF.search(t):
            return True
        types = self.types
        return any(types.get(name, "").replace("const", "").strip(" *&").split(" ")[-1] in FLOAT_TYPES
                   for name in _IDENTIFIER.findall(t))

    def _float_calls_blanked(self, node) -> str:
        """The expression's text with each call of float math (`fmaxf(x, 1.0)`) as `1.0f`."""
        start, parts, stack = node.start_byte, [], [node]
        while stack:
            n = stack.pop()
            if _KINDS[n.kind_id] == "call_expression":
                fn = n.child_by_field_id(F_FUNCTION)
                if fn is not None and _FLOAT_CALL.fullmatch(self.text(fn)):
                    parts.append((n.start_byte, n.end_byte))
                    continue
            stack.extend(n.named_children)
        if not parts:
            return self.text(node)
        text, out, at = self.text(node), [], start
        for a, b in sorted(parts):
            out.append(text[at - start:a - start])
            out.append("1.0f")
            at = b
        out.append(text[at - start:])
        return "".join(out)

    def _to_float(self, node) -> bool:
        """Whether an expression's value becomes a float at once: assigned to a float, declared
        as one, returned from a float function, passed to float math, or cast to float."""
        child, parent = _unparenthesized_parent(node)
        if parent is None:
            return False
        kind = _KINDS[parent.kind_id]
        if kind == "assignment_expression":
            left = parent.child_by_field_id(F_LEFT)
            return self._op(parent) == "=" and left is not None and left != child and self._float_valued(left)
        if kind == "init_declarator":
            decl = parent.parent
            tnode = decl.child_by_field_id(F_TYPE) if decl is not None else None
            return tnode is not None and self.text(tnode) in FLOAT_TYPES
        if kind == "return_statement":
            fn = parent.parent
            while fn is not None and _KINDS[fn.kind_id] != "function_definition":
                fn = fn.parent
            tnode = fn.child_by_field_id(F_TYPE) if fn is not None else None
            return tnode is not None and self.text(tnode) == "float"
        if kind == "argument_list":
            call = parent.parent
            fn = call.child_by_field_id(F_FUNCTION) if call is not None else None
            return fn is not None and _FLOAT_CALL.fullmatch(self.text(fn)) is not None
        if kind == "cast_expression":
            tnode = parent.child_by_field_id(F_TYPE)
            return tnode is not None and self.text(tnode) == "float"
        return False

    def field(self, node) -> Expr:
        arg = node.child_by_field_id(F_ARGUMENT)
        fld = node.child_by_field_id(F_FIELD)
        if arg is not None and fld is not None and _KINDS[arg.kind_id] == "identifier" and self.text(arg) in _BUILTIN_FIELDS:
            name = f"{self.text(arg)}.{self.text(fld)}"
            self.g.add_node(name)
            return ("s", name)
        if arg is not None and _KINDS[arg.kind_id] in ("subscript_expression", "pointer_expression", "field_expression") or (
                arg is not None and _KINDS[arg.kind_id] == "identifier" and self.text(arg) in self.ptrs):
            return self.load(node)
        if arg is not None:
            member = self._param_member(arg, fld)
            if member is not None:
                return member
            base = self.expr(arg)
            return self.fresh(self.text(node)[:20], node.start_point[0] + 1, S.symbols(base)) if S.symbols(base) else S.UNKNOWN
        return S.UNKNOWN

    def _param_member(self, arg, fld) -> Expr | None:
        """`p.width` where p is the kernel's struct parameter (by value: the same in every thread) and
        width no pointer: a size like a scalar parameter's, the symbol `p.width` (a value nobody gives
        is assumed, and said so), not an opaque value that leaves every index it is in unknown
        (nvdiffrast's `px + p.width * (py + p.height * pz)`). None for anything else."""
        if fld is None or _KINDS[arg.kind_id] != "identifier":
            return None
        name = self.text(arg)
        bound = self.env.get(name)
        if bound is not None and bound[0] == "s":
            name = bound[1]     # an inlined function's parameter that the kernel's struct was passed to
        elif bound is not None or name in self.ptrs:
            return None
        if name not in self.scalar_params:
            return None
        prm = self.k.param(name)
        if prm is None or prm.pointer:
            return None
        struct = self.resolve(prm.type)
        fields = self.p.fields.get(struct)
        if fields is None:
            if not self._header_struct(struct):
                return None
        else:
            entry = fields.get(self.text(fld))
            if entry is None or entry[1].endswith("*") or self.size_of(entry[1]) not in (1, 2, 4, 8):
                return None
        sym = f"{name}.{self.text(fld)}"
        self.g.add_node(sym)
        return ("s", sym)

    def binary(self, node) -> Expr:
        ch = node.children
        if len(ch) == 3:   # left, operator, right (no comment or error between): one call, not three
            left, op_node, right = ch
            op = self.text(op_node)
        else:
            op = self._op(node)
            left = node.child_by_field_id(F_LEFT)
            right = node.child_by_field_id(F_RIGHT)
        if op == ">" and left is not None and _KINDS[left.kind_id] == "template_function":
            # `i < n && j >> 1`, read as the comparison `i<n && j> > 1` of a template function:
            # `i <` on the leftmost operand between the angle brackets, `>> 1` on the rightmost
            v = self._misread_template(left, right, b">>")
            if v is not None:
                return v
        a = self.expr(left)
        if op == "&&" or op == "||":
            # short-circuit: the right side runs only where the left one decided nothing (its
            # loads are guarded by it: `i < n && x[i] > 0` reads x[i] only below n)
            self.guards.append(a if op == "&&" else S.binop("==", a, ("c", 0)))
            b = self.expr(right)
            self.guards.pop()
            return S.binop(op, a, b)
        b = self.expr(right)
        if op in ("+", "-", "*", "/"):
            self.out.flops_per_thread += 1
            if op == "/" and self.loops and b[0] != "c" and self._floating(node):
                self.breaks += 1    # IEEE division has a slow path
        return S.binop(op, a, b)

    def _floating(self, node) -> bool:
        """Whether an operand (or either operand of a division) is floating-point as written: a
        float literal, a cast to a floating type, a variable of one; a cast to another type is
        not (`(int)v / n`)."""
        node = _unwrapped(node)
        k = _KINDS[node.kind_id]
        if k == "binary_expression":
            left = node.child_by_field_id(F_LEFT)
            right = node.child_by_field_id(F_RIGHT)
            return (left is not None and self._floating(left)) or (right is not None and self._floating(right))
        if k == "cast_expression":
            tnode = node.child_by_field_id(F_TYPE)
            return tnode is not None and _floating_type(self.text(tnode))
        text = self.text(node)
        if _FLOAT_LITERAL.search(text):
            return True
        for name in _IDENTIFIER.findall(text):
            ty = self.types.get(name)
            if ty is not None and _floating_type(ty):
                return True
        return False

    def _unrolled_condition(self, cond) -> bool:
        """A condition on the counters of constant-count loops alone (`if (j < 3)` in `j < 4`):
        a constant in each unrolled copy, no branch."""
        syms = S.symbols(cond)
        if not syms:
            return False
        for lp in self.loops:
            if lp.var in syms and _counted_trips(lp.var, lp.init, lp.cond, lp.step) is not None:
                syms = syms - {lp.var}
        return not syms

    def assignment(self, node) -> Expr:
        left = node.child_by_field_id(F_LEFT)
        right = node.child_by_field_id(F_RIGHT)
        op = self._op(node)
        line = node.start_point[0] + 1
        if left is not None and right is not None and op == "=" and \
                _KINDS[left.kind_id] in ("template_function", "binary_expression"):
            value = self._misread_comparison(left, right)
            if value is not None:
                return value
        if left is not None and _KINDS[left.kind_id] == "identifier":
            name = self.text(left)
            if name in self.ptrs and self.ptrs[name].space != "local":
                ptr = self.ptrs[name]
                if op == "=":
                    new = self.pointer(right)
                    if new is not None:
                        self.ptrs[name] = new
                    return S.UNKNOWN
                if op in ("+=", "-="):
                    inc = self.expr(right)
                    step = S.binop("*", inc, ("c", ptr.elem_size))
                    offset = S.binop(op[0], ptr.offset, step)
                    self.ptrs[name] = _Ptr(ptr.base, self.bound(offset, name, line), ptr.elem_type, ptr.elem_size,
                                           ptr.space, ptr.dims)
                    return S.UNKNOWN
            value = self.expr(right)
            if op == "=" and self._shared_scalar(name) and self._thread_dependent_now(value):
                # one shared variable for the whole block: after a barrier every thread reads the
                # same value (`if (tid == 0) is_last = (ticket == last); __syncthreads(); if (is_last)`)
                value = self.fresh(name, line, set())
            if op == "=":
                self.define(name, value, line)
            else:
                old = self.env.get(name, ("s", name))
                self.define(name, S.binop(op[:-1], old, value), line)
                if op[:-1] in "+-*/":
                    self.out.flops_per_thread += 1
            return self.env.get(name, S.UNKNOWN)
        value = self.expr(right)
        if left is not None:
            if op != "=":
                self.load(left)  # compound assignment reads first
                self.out.flops_per_thread += 1
            self.store(left)
        return value

    def update(self, node) -> Expr:
        arg = node.child_by_field_id(F_ARGUMENT)
        op = _incdec(node)
        line = node.start_point[0] + 1
        if arg is not None and _KINDS[arg.kind_id] == "identifier":
            name = self.text(arg)
            if name in self.ptrs:
                ptr = self.ptrs[name]
                offset = S.binop("+" if op == "++" else "-", ptr.offset, ("c", ptr.elem_size))
                self.ptrs[name] = _Ptr(ptr.base, offset, ptr.elem_type, ptr.elem_size, ptr.space, ptr.dims)
                return S.UNKNOWN
            old = self.env.get(name, ("s", name))
            new = S.binop("+" if op == "++" else "-", old, ("c", 1))
            self.define(name, new, line)
            # `++j` is the value after the step, `j++` the value before
            return new if _prefix(node) else old
        if arg is not None:
            self.load(arg)
            self.store(arg)
        return S.UNKNOWN

    def call(self, node) -> Expr:
        fn = node.child_by_field_id(F_FUNCTION)
        args_node = node.child_by_field_id(F_ARGUMENTS)
        args = code_children(args_node) if args_node is not None else []
        name = self.text(fn) if fn is not None else ""
        line, col = node.start_point[0] + 1, node.start_point[1] + 1
        if name in _BRANCHING_CALLS:
            self.breaks += 1
        if fn is not None and _KINDS[fn.kind_id] == "template_function":
            base = fn.child_by_field_id(F_NAME)
            base_name = self.text(base) if base is not None else name
            if base_name in _CASTS and args:
                return self.expr(args[0])
            name = base_name
        if "::" in name:
            # `::min(i, n - 1)`, `std::max<int>(a, b)`, `cuda::std::min`: the same functions as `min`
            prefix, _, last = name.rpartition("::")
            last = last.split("<", 1)[0].strip()
            if last in S._CALLS and prefix.strip() in ("", "std", "::std", "cuda::std", "::cuda::std", "thrust"):
                name = last
        if fn is not None and _KINDS[fn.kind_id] == "field_expression":
            method = fn.child_by_field_id(F_FIELD)
            mname = self.text(method) if method is not None else ""
            obj = fn.child_by_field_id(F_ARGUMENT)
            if mname in ("size", "stride") and len(args) == 1 and obj is not None and _KINDS[obj.kind_id] == "identifier":
                acc = self.ptrs.get(self.text(obj))
                d = self.expr(args[0])
                if acc is not None and acc.dims and acc.base == self.text(obj) and d[0] == "c" and type(d[1]) is int:
                    # a tensor accessor's size (`acc.size(0)`, a bound): the symbol its rows are laid out by
                    if mname == "size" and 0 <= d[1] < len(acc.dims):
                        return ("s", f"{acc.base}.size({d[1]})")
                    if mname == "stride" and d[1] == len(acc.dims) - 1:
                        return ("c", 1)
            group = self._group(obj) if obj is not None else None
            if mname in ("sync",):
                self.barrier(_GROUP_BARRIER[group[0]] if group is not None else
                             "__syncthreads" if "block" in self.text(obj or fn) or "grid" not in self.text(obj or fn)
                             else "grid.sync", line, col)
                return S.UNKNOWN
            if group is not None and not args:
                value = _group_value(group, mname)
                if value is not None:
                    return value
            if mname in ("thread_rank",):
                for a in args:
                    self.expr(a)
                self.g.add_edge("threadIdx.x", "%thread")
                return self.fresh("thread_rank", line, {"%thread"})
            if mname.startswith("shfl") or mname in ("ballot", "any", "all", "match_any"):
                deps = set()
                for a in args:
                    deps |= S.symbols(self.expr(a))
                self.g.add_edge("threadIdx.x", "%thread")
                return self.fresh(mname, line, deps | {"%thread"})
        if name in _BARRIERS:
            for a in args:
                self.expr(a)
            self.barrier(name, line, col)
            return S.UNKNOWN
        if name.endswith("::sync") and len(args) == 1:     # cg::sync(block)
            group = self._group(args[0])
            if group is not None:
                self.barrier(_GROUP_BARRIER[group[0]], line, col)
                return S.UNKNOWN
        if name in _ATOMICS and args:
            value = [self.expr(a) for a in args[1:]]
            ptr = self.pointer(args[0])
            if ptr is not None:
                self.record(ptr, "atomic", node, ("c", 0))
            deps = _symbols_of(value)
            self.g.add_edge("threadIdx.x", "%thread")
            return self.fresh(name, line, deps | {"%thread"})
        if name in _LOAD_INTRINSICS and args:
            ptr = self.pointer(args[0])
            if ptr is not None:
                return self.record(ptr, "load", node, ("c", 0))
            return self.expr(args[0])
        if name in _STORE_INTRINSICS and len(args) >= 2:
            self.expr(args[1])
            ptr = self.pointer(args[0])
            if ptr is not None:
                self.record(ptr, "store", node, ("c", 0))
            return S.UNKNOWN
        if name.endswith("load_matrix_sync") or name.endswith("store_matrix_sync"):
            if 3 <= len(args) <= 4:
                self._wmma(node, args, name.endswith("store_matrix_sync"))
                return S.UNKNOWN
        if name.endswith("mma_sync") and len(args) == 4:
            self._mma(node, args)
            return S.UNKNOWN
        if name in _ASYNC_COPIES and 3 <= len(args) <= 4 and self._group(args[0]) is None:
            self._async_copy(node, args)
            return S.UNKNOWN
        if name.startswith("cuda::aligned_size_t") and len(args) == 1:    # a size with its alignment: the size
            return self.expr(args[0])
        if name in _LANE_CALLS and not args and self.p.function(name) is None:
            return _lane()      # a header's lane helper (`getLaneId()`): the thread's lane in its warp
        values = [self.expr(a) for a in args]
        if name.startswith("__shfl") or name in ("__ballot_sync", "__any_sync", "__all_sync", "__activemask",
                                                   "__match_any_sync", "__popc", "__ffs", "__clz", "clock", "clock64",
                                                   "__lanemask_lt"):
            deps = _symbols_of(values)
            if name.startswith("__shfl") or name.startswith("__ballot") or name == "__activemask":
                self.g.add_edge("threadIdx.x", "%thread")
                deps.add("%thread")
            if name.endswith("_sync"):
                # a warp collective: its lanes have all read its operands before any returns (the race
                # check: a lane's write after it cannot overtake a read of its warp before it)
                self.out.events.append(Event("collective", None, len(self.loops)))
            return self.fresh(name.strip("_"), line, deps)
        if name in S._CALLS:
            return ("f", name, tuple(values))
        self._note_double_call(name, values, line, col)
        lam = self.lambdas.get(name)
        if lam is not None and len(self.function_stack) <= MAX_INLINE_DEPTH and name not in self.function_stack:
            return self._inline_lambda(name, lam, args, values)
        callee = self.p.function(name)
        if callee is not None and callee.kind != "global" and callee.body is not None and len(self.function_stack) <= MAX_INLINE_DEPTH \
                and callee.name not in self.function_stack:
            return self.inline_call(callee, args, values)
        deps = _symbols_of(values)
        if name in ("sqrtf", "expf", "__expf", "logf", "__logf", "sinf", "cosf", "tanhf", "powf", "rsqrtf", "fmaf",
                    "__fdividef", "exp2f", "erff", "__sinf", "__cosf"):
            self.out.flops_per_thread += 1
            self.out.uses_float = True
        for v in values:    # a loop, not a generator: Cython compiles no closure in a cpdef method
            if v[0] == "?":
                return S.UNKNOWN    # an argument the walk could not read (a header struct's member) may differ by thread
        return self.fresh(name[:24] or "call", line, deps) if deps else S.UNKNOWN

    def _async_copy(self, node, args) -> None:
        """`__pipeline_memcpy_async(&s[t], &g[i], 16)` (also cuda::memcpy_async with a pipeline or a
        barrier): a load of the global source as wide as the copy where its size is a constant 4,
        8 or 16 (the element's size otherwise), and the write of the shared destination for the
        race check, with no estimate (see _asm). A group's cooperative copy (a group first, or
        five arguments) spreads the bytes over the group as the library decides: not modelled."""
        size = self.expr(args[2])
        for a in args[3:]:
            self.expr(a)
        width = size[1] if size[0] == "c" and size[1] in (4, 8, 16) else None
        src, dst = self.pointer(args[1]), self.pointer(args[0])
        if src is not None:
            self.record(_wide(src, width or src.elem_size), "load", node, ("c", 0))
        if dst is not None:      # a write for the race check; see _asm
            self.record(_wide(dst, width or dst.elem_size), "store", node, ("c", 0), False)

    def _shared_address(self, node) -> _Ptr | None:
        """The shared memory an integer address denotes (`__cvta_generic_to_shared(&s[i])`, through
        casts, a variable holding one, plus a byte offset), as a pointer of bytes; or None."""
        t = _KINDS[node.kind_id]
        if t == "identifier":
            return self.saddr.get(self.text(node))
        if t == "parenthesized_expression":
            inner = code_children(node)
            return self._shared_address(inner[-1]) if inner else None
        if t == "cast_expression":
            return self._shared_address(node.child_by_field_id(F_VALUE))
        if t == "call_expression":
            fn = node.child_by_field_id(F_FUNCTION)
            args_node = node.child_by_field_id(F_ARGUMENTS)
            args = code_children(args_node) if args_node is not None else []
            name = self.text(fn) if fn is not None else ""
            if len(args) != 1:
                return None
            if fn is not None and _KINDS[fn.kind_id] == "template_function":
                return self._shared_address(args[0])      # static_cast<unsigned>(...)
            if name in _CVTA_SHARED:
                p = self.pointer(args[0])
                return _Ptr(p.base, p.offset, "char", 1, p.space, ()) if p is not None and p.space == "shared" else None
            return None
        if t == "binary_expression" and self._op(node) in ("+", "-"):
            left, right = node.child_by_field_id(F_LEFT), node.child_by_field_id(F_RIGHT)
            p = self._shared_address(left)
            if p is None:
                return None
            off = self.expr(right)
            return _Ptr(p.base, S.binop(self._op(node), p.offset, off), "char", 1, p.space, ())
        return None

    def _asm(self, node) -> None:
        """Inline PTX: the memory instructions of an asm statement are accesses at its operands
        (%N: outputs, then inputs): ld/st.global and .shared (with .v2/.v4 and an offset),
        ldmatrix/stmatrix .x1/.x2/.x4 (16 bytes a lane from the row address each of lanes 0-7,
        0-15 or all gives, as the LDSM of wmma), cp.async (a global load and a shared store as
        wide as the copy). Shared addresses are `__cvta_generic_to_shared` of a shared pointer."""
        code_node = node.child_by_field_id(FIELD.assembly_code)
        code = self.text(code_node) if code_node is not None else ""
        if "\\" in code:     # the literal as written: `"{\n\tld.global ..."` must not read as `tld.global`
            code = code.replace("\\n", "\n").replace("\\t", "\t")
        outputs, inputs = [], []
        for field_id, out in ((FIELD.output_operands, outputs), (FIELD.input_operands, inputs)):
            lst = node.child_by_field_id(field_id)
            if lst is not None:
                for op in lst.children_by_field_id(FIELD.operand):
                    out.append(op.child_by_field_id(F_VALUE))
        operands, n_out = outputs + inputs, len(outputs)
        line = node.start_point[0] + 1
        deps = set()
        for op in inputs:
            if op is not None:
                deps |= S.symbols(self.expr(op))
        pure = _pure_ptx(code)
        for i, op in enumerate(outputs):
            if op is None or _KINDS[op.kind_id] != "identifier":
                continue
            # written by the asm: `mov.u32 %0, %laneid;` is the lane; arithmetic (`bfind`, `prmt`,
            # `lop3`...) is a function of its inputs (and of an in-out operand's value before);
            # anything else (loads, shuffles, special registers) differs per thread
            name = self.text(op)
            if re.search(rf"mov\.[ub]32\s+%{i}\s*,\s*%%?laneid", code):
                self.define(name, _lane(), line)
            elif pure:
                self.define(name, self.fresh("asm", line, deps | S.symbols(self.expr(op))), line)
            else:
                self.g.add_edge("threadIdx.x", "%thread")
                self.define(name, self.fresh("asm", line, {"%thread"}), line)
        if "mma" in code:
            self._ptx_mma(node, code)
        if "bar" in code:
            for m in _PTX_BARRIER.finditer(code):
                self.barrier(_ptx_barrier_name(m.group(1), m.group(3)), line, node.start_point[1] + 1)
        if "[" not in code:
            return
        at = self._asm_operand
        for m in _PTX_CP_ASYNC.finditer(code):
            src = at(operands, m.group(2), "global", int(m.group(3)), ("c", 0))
            dst = at(operands, m.group(1), "shared", int(m.group(3)), ("c", 0))
            if src is not None:
                self.record(src, "load", node, ("c", 0))
            if dst is not None:
                # the copy's shared write, for the race check, with no estimate: the H200 counts its
                # bank conflicts by the global source's sectors, not by the destination's banks
                # (bench/memory_probe.py: none for 16-byte slots 128 bytes apart)
                self.record(dst, "store", node, ("c", 0), False)
        for m in _PTX_MATRIX.finditer(code):
            p = at(operands, m.group(3), "shared", 16, ("c", 0))
            if p is None:
                continue
            lanes = {"1": 8, "2": 16, "4": 32}[m.group(2)]
            if lanes < 32:     # the other lanes' addresses are not read
                self.guards.append(S.binop("<", _lane(), ("c", lanes)))
            self.record(p, "load" if m.group(1) == "ldmatrix" else "store", node, ("c", 0))
            if lanes < 32:
                self.guards.pop()
        for m in _PTX_LDST.finditer(code):
            size = _PTX_SIZES.get(m.group(5))
            if size is None:
                continue
            width = size * {"v2": 2, "v4": 4, "v8": 8}.get(m.group(4) or "", 1)
            p = at(operands, m.group(6), m.group(2), width, ("c", int(m.group(7) or 0)))
            if p is not None:
                self.record(p, "load" if m.group(1) == "ld" else "store", node, ("c", 0))

    def _ptx_mma(self, node, code: str) -> None:
        """PTX tensor-core products as MatrixOps: `mma.sync.aligned.mMnNkK` is one warp's M*N*K
        multiply-adds; `wgmma.mma_async...mMnNkK` a warpgroup's, a quarter of them each warp's."""
        for m in _PTX_MMA.finditer(code):
            macs = int(m.group(2)) * int(m.group(3)) * int(m.group(4)) // (4 if m.group(1) else 1)
            if macs:
                self._matrix_op(node, macs)

    def _asm_operand(self, operands: list, index: str, space: str, width: int, extra: Expr) -> _Ptr | None:
        """The memory an asm operand (%index) addresses, `width` bytes a lane, or None."""
        k = int(index)
        value = operands[k] if k < len(operands) else None
        if value is None:
            return None
        p = self._shared_address(value) if space == "shared" else self.pointer(value)
        if p is None or p.space != space:
            return None
        return _Ptr(p.base, S.binop("+", p.offset, extra), p.elem_type, width, p.space)

    def _mma(self, node, args) -> None:
        """`mma_sync(d, a, b, c)` on wmma fragments: a MatrixOp of the accumulator's shape (any
        shape: 16x16x16, 32x8x16, 8x32x16 and tf32's 16x16x8 are all one warp's product)."""
        for a in args:
            self.expr(a)
        shape = self._fragment_shape(args[0])
        if shape is not None:
            self._matrix_op(node, shape[0] * shape[1] * shape[2])

    def _matrix_op(self, node, macs: int) -> None:
        """A warp's tensor-core product of `macs` multiply-adds at `node`, under the loops and guards now."""
        self.out.mmas.append(MatrixOp(node.start_point[0] + 1, node.start_point[1] + 1, macs,
                                      self._tuple(self.loops), self._tuple(self.guards)))

    def _fragment_shape(self, node) -> tuple[int, int, int] | None:
        """(m, n, k) of a wmma fragment variable's type, where all three are known constants."""
        m = self._fragment_type(node)
        return self._shape_of(m) if m is not None else None

    def _shape_of(self, m) -> tuple[int, int, int] | None:
        """(m, n, k) of a fragment type's match, where all three are known constants up to 64."""
        dims = []
        for t in m.group(2, 3, 4):
            d = int(t) if t.isdigit() else self.consts.get(t)
            if not isinstance(d, int) or not 0 < d <= 64:
                return None
            dims.append(d)
        return dims[0], dims[1], dims[2]

    def _fragment_type(self, node):
        """The `fragment<...>` match of a fragment variable (`a`, `frag[i]`) 's declared type, or None."""
        while node is not None and _KINDS[node.kind_id] in ("subscript_expression", "parenthesized_expression"):
            node = node.child_by_field_id(F_ARGUMENT) if _KINDS[node.kind_id] == "subscript_expression" \
                else (code_children(node) or [None])[-1]
        if node is None or _KINDS[node.kind_id] != "identifier":
            return None
        return WMMA_FRAGMENT.search(self.types.get(self.text(node), ""))

    def _fragment(self, node) -> tuple[str, str] | None:
        """(use, element type) of a 16x16x16 wmma fragment variable (`a`, `frag[i]`), or None."""
        m = self._fragment_type(node)
        if m is None or self._shape_of(m) != (16, 16, 16):
            return None     # other shapes (32x8x16, 8x32x16, tf32's k = 8) are laid out otherwise
        return m.group(1), self.resolve(m.group(5).split("::")[-1] if m.group(5).startswith("wmma") else m.group(5))

    def _wmma(self, node, args, store: bool) -> None:
        """A warp's `load_matrix_sync(frag, p, ldm)` / `store_matrix_sync(p, frag, ldm, layout)` of a
        16x16 tile, as the instructions ptxas makes of it on sm_80/sm_90 (read from its SASS):
        a half/bf16 matrix_a/b from shared memory is one LDSM.16.M88.4 (lane l gives the 16-byte
        row l % 8 of 8x8 matrix l / 8: rows 0-7 and 8-15 of columns 0-7, then of columns 8-15);
        from global memory four 4-byte LDGs (lane l: row l / 4, elements 2 * (l % 4) of each quarter).
        A float accumulator is four 8-byte accesses (row l / 4, elements 2 * (l % 4)) row-major,
        eight 4-byte ones column-major. Other shapes and types are not modelled."""
        frag_node, ptr_node = (args[1], args[0]) if store else (args[0], args[1])
        ldm = self.expr(args[2])
        layout = args[3] if len(args) > 3 else None
        if layout is not None and _KINDS[layout.kind_id] == "conditional_expression":   # COL ? col_major : row_major
            cond = self.expr(layout.child_by_field_id(F_CONDITION))
            layout = layout.child_by_field_id(F_CONSEQUENCE if cond != ("c", 0) else F_ALTERNATIVE) \
                if cond[0] == "c" else None
        layout = self.text(layout) if layout is not None else ""
        frag = self._fragment(frag_node)
        ptr = self.pointer(ptr_node)
        if frag is None or ptr is None or S.is_unknown(ldm):
            return
        use, etype = frag
        b = S.binop
        lane = _lane()
        row, pair = b(">>", lane, ("c", 2)), b("*", b("&", lane, ("c", 3)), ("c", 2))
        pieces: list[tuple[Expr, int]] = []      # (byte offset of each lane, bytes a lane) per instruction
        if use in ("matrix_a", "matrix_b") and not store and etype in _WMMA_HALVES:
            if ptr.space == "shared":
                m, r = b(">>", lane, ("c", 3)), b("&", lane, ("c", 7))
                mrow = b("+", b("*", b("&", m, ("c", 1)), ("c", 8)), r)
                col = b("*", b(">>", m, ("c", 1)), ("c", 8))
                pieces.append((b("*", b("+", b("*", mrow, ldm), col), ("c", 2)), 16))
            else:
                for dr, dc in _WMMA_QUARTERS:
                    at = b("+", b("*", b("+", row, ("c", dr)), ldm), b("+", pair, ("c", dc)))
                    pieces.append((b("*", at, ("c", 2)), 4))
        elif use == "accumulator" and etype == "float":
            for dr, dc in _WMMA_QUARTERS:
                if "col_major" in layout:
                    for d in (0, 1):
                        at = b("+", b("*", b("+", pair, ("c", dc + d)), ldm), b("+", row, ("c", dr)))
                        pieces.append((b("*", at, ("c", 4)), 4))
                else:
                    at = b("+", b("*", b("+", row, ("c", dr)), ldm), b("+", pair, ("c", dc)))
                    pieces.append((b("*", at, ("c", 4)), 8))
        for offset, width in pieces:
            self.record(_Ptr(ptr.base, ptr.offset, ptr.elem_type, width, ptr.space), "store" if store else "load",
                        node, offset)

    _DOUBLE_MATH = {"sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "pow", "fabs", "floor", "ceil", "erf", "rsqrt",
                    "exp2", "log2", "log10", "fma", "fmod", "atan", "atan2", "asin", "acos", "sinh", "cosh", "cbrt"}

    def _note_double_call(self, name: str, values, line: int, col: int) -> None:
        if name in self._DOUBLE_MATH:
            self.out.double_calls.append((name, line, col))

    def inline_call(self, callee: Function, arg_nodes, values) -> Expr:
        env: dict[str, Expr] = {}
        ptrs, types = dict(self.ptrs), dict(self.types)
        self._bind(callee.params, arg_nodes, values, env, ptrs, types)
        if not callee.shared:
            return self._walk_inlined(callee.name, callee.body, callee.line, env, ptrs, types)
        # the callee's own shared arrays, under their names while its body is walked
        saved = (self.arrays, self.array_ptrs)
        self.arrays, self.array_ptrs = dict(self.arrays), {}
        for arr in callee.shared:
            self.arrays[arr.name] = arr
            ptrs.pop(arr.name, None)
            types.pop(arr.name, None)
            if arr not in self.out.helper_shared:
                self.out.helper_shared.append(arr)
        try:
            return self._walk_inlined(callee.name, callee.body, callee.line, env, ptrs, types)
        finally:
            self.arrays, self.array_ptrs = saved

    def _bind(self, params, arg_nodes, values, env: dict, ptrs: dict, types: dict) -> None:
        """A called body's parameters bound to the call's arguments: a pointer to the memory its
        argument points to (as the parameter's type), a scalar to its argument's value; each
        hides what the caller had of that name."""
        if len(params) > len(values):
            self._defaults(params, len(values), env, ptrs, types)
        for prm, node, value in zip(params, arg_nodes, values):
            if prm.pointer:
                env.pop(prm.name, None)
                ptr = self.pointer(node)
                if ptr is not None:
                    size = self.size_of(prm.type) or ptr.elem_size
                    ptrs[prm.name] = _Ptr(ptr.base, ptr.offset, self.resolve(prm.type), size, ptr.space, ptr.dims)
                else:
                    ptrs.pop(prm.name, None)
            else:
                env[prm.name] = value
                ptrs.pop(prm.name, None)
            types[prm.name] = self.resolve(prm.type) + "*" * prm.pointer

    def _defaults(self, params, given: int, env: dict, ptrs: dict, types: dict) -> None:
        """The parameters after the `given` arguments of a call take their defaults (`int stride = 1`)
        where those are constants; the others stay unbound, as before."""
        for prm in params[given:]:
            v = eval_constant(prm.default, self.consts) if prm.default is not None and not prm.pointer else None
            if type(v) is int or type(v) is float:
                env[prm.name] = ("c", v)
                ptrs.pop(prm.name, None)
                types[prm.name] = self.resolve(prm.type)

    def _walk_inlined(self, name: str, body, line: int, env: dict, ptrs: dict, types: dict) -> Expr:
        """Walks a called body (a device function's, a lambda's) with its own bindings, then the
        caller's again; the value it returns (one `return`'s, else an opaque symbol of them all)."""
        saved = (self.env, self.ptrs, self.types)
        self.env, self.ptrs, self.types = env, ptrs, types
        self.function_stack.append(name)
        self.returns.append([])
        try:
            if body is not None:
                self.block(body)
            rets = self.returns[-1]
        finally:
            self.returns.pop()
            self.function_stack.pop()
            self.env, self.ptrs, self.types = saved
        if len(rets) == 1:
            return rets[0]
        deps = _symbols_of(rets)
        return self.fresh(name, line, deps) if deps else S.UNKNOWN

    def _inline_lambda(self, name: str, lam, arg_nodes, values) -> Expr:
        """A call of a lambda the kernel defined (`auto load = [&](int stage, int k0) {...}; load(0, 0);`):
        its body walked here, with its parameters bound to the arguments as a device function's
        are, and the kernel's variables it captures as they are now (what it assigns to them is
        not carried out of it)."""
        decl = lam.child_by_field_id(F_DECLARATOR)
        plist = None
        if decl is not None:
            for c in decl.named_children:
                if _KINDS[c.kind_id] == "parameter_list":
                    plist = c
        env, ptrs, types = dict(self.env), dict(self.ptrs), dict(self.types)
        self._bind(params_of(plist, self.text), arg_nodes, values, env, ptrs, types)
        return self._walk_inlined(name, lam.child_by_field_id(F_BODY), lam.start_point[0] + 1, env, ptrs, types)

    def barrier(self, name: str, line: int, col: int) -> None:
        conds = []
        for lp in self.loops:
            if lp.cond is not None:
                conds.append(lp.cond)
        loop_conds = tuple(conds)
        self.breaks += 1
        b = Barrier(name, line, col, self._tuple(self.loops), self._tuple(self.guards), loop_conds)
        self.loaded.clear()       # other threads' writes become visible
        self.out.barriers.append(b)
        self.out.events.append(Event("barrier", b, len(self.loops)))

    # -- memory
    def pointer(self, node) -> _Ptr | None:
        """The pointer an expression denotes (base, byte offset, element type), or None."""
        if node is None:
            return None
        t = _KINDS[node.kind_id]
        if t == "identifier":
            name = self.text(node)
            if name in self.ptrs:
                return self.ptrs[name]
            got = self.array_ptrs.get(name)
            if got is not None:
                return got
            arr = self.arrays.get(name)
            if arr is not None:
                # the same for the whole walk: made once per array
                size = self.size_of(arr.type) or 4
                got = _Ptr(name, ("c", 0), self.resolve(arr.type), size, arr.space if arr.space != "device" else "global",
                           self._array_dims(arr))
                self.array_ptrs[name] = got
                return got
            return None
        if t == "parenthesized_expression":
            inner = code_children(node)
            return self.pointer(inner[-1]) if inner else None
        if t == "update_expression":
            # `*p++` / `*++p`: the pointer before (after) the step, which moves p as `p++;` does
            arg = node.child_by_field_id(F_ARGUMENT)
            name = self.text(arg) if arg is not None and _KINDS[arg.kind_id] == "identifier" else None
            if name is None or name not in self.ptrs:
                return None
            before = self.ptrs[name]
            self.update(node)
            return self.ptrs[name] if _prefix(node) else before
        if t == "pointer_expression" and self._op(node) == "&":
            target = node.child_by_field_id(F_ARGUMENT)
            return self.address_of(target)
        if t == "binary_expression" and self._op(node) in ("+", "-"):
            left, right = node.child_by_field_id(F_LEFT), node.child_by_field_id(F_RIGHT)
            p = self.pointer(left)
            if p is not None:
                off = self.expr(right)
                step = S.binop("*", off, ("c", p.elem_size))
                return _Ptr(p.base, S.binop(self._op(node), p.offset, step), p.elem_type, p.elem_size, p.space)
            p = self.pointer(right) if self._op(node) == "+" else None
            if p is not None:
                off = self.expr(left)
                return _Ptr(p.base, S.binop("+", p.offset, S.binop("*", off, ("c", p.elem_size))), p.elem_type,
                            p.elem_size, p.space)
            return None
        if t == "cast_expression":
            tnode = node.child_by_field_id(F_TYPE)
            p = self.pointer(node.child_by_field_id(F_VALUE))
            if p is not None and tnode is not None:
                return self._retype(p, self.text(tnode))
            return p
        if t == "call_expression":
            fn = node.child_by_field_id(F_FUNCTION)
            args = node.child_by_field_id(F_ARGUMENTS)
            if fn is not None and _KINDS[fn.kind_id] == "template_function" and args is not None and code_children(args):
                name_node = fn.child_by_field_id(F_NAME)
                if name_node is not None and self.text(name_node) in _CASTS:
                    p = self.pointer(code_children(args)[0])
                    targs = fn.child_by_field_id(F_ARGUMENTS)
                    if p is not None and targs is not None:
                        return self._retype(p, self.text(targs)[1:-1])
                    return p
            return None
        if t == "subscript_expression":
            # a row of a multi-dimensional array
            p = self.pointer(node.child_by_field_id(F_ARGUMENT))
            if p is not None and len(p.dims) > 1:
                idx = self._index(node)
                off = S.binop("+", p.offset, S.binop("*", idx, _row_bytes(p.dims, p.elem_size)))
                return _Ptr(p.base, off, p.elem_type, p.elem_size, p.space, p.dims[1:])
            return None
        if t == "conditional_expression":
            return self.pointer(node.child_by_field_id(F_CONSEQUENCE))
        if t == "field_expression":
            return self._pointer_field(node)
        return None

    def _pointer_field(self, node) -> _Ptr | None:
        """`p.x` / `p->x` where x is a pointer field of a known struct: a base of its own (`p.x`)."""
        arg = node.child_by_field_id(F_ARGUMENT)
        fld = node.child_by_field_id(F_FIELD)
        if arg is None or fld is None or _KINDS[arg.kind_id] != "identifier":
            return None
        owner = self.types.get(self.text(arg), "")
        struct = self.resolve(owner.rstrip("*").strip())
        fields = self.p.fields.get(struct)
        if fields is None and self._header_struct(struct) and (owner.endswith("*") or self.k.param(self.text(arg)) is not None):
            # a pointer to such a struct, or the kernel's parameter (a local's members are its own)
            return self._header_field(self.text(arg), self.text(fld), struct)
        entry = fields.get(self.text(fld)) if fields else None
        if entry is None or not entry[1].endswith("*"):
            return None
        pointee = self.resolve(entry[1].rstrip("*").strip())
        size = self.size_of(pointee) or 4
        return _Ptr(f"{self.text(arg)}.{self.text(fld)}", ("c", 0), pointee, size, "global")

    def _header_struct(self, struct: str) -> bool:
        """Whether a variable's type is a struct whose fields the file does not hold (a header's
        `Params`, a template's type parameter): not a scalar, vector or struct of known size."""
        return bool(struct) and struct != "auto" and _TYPE_NAME.fullmatch(struct) is not None \
            and self.size_of(struct) is None

    def _header_field(self, var: str, field: str, struct: str) -> _Ptr:
        """`p.x[i]` / `p->x[i]` where `p`'s struct is not in the file: x, subscripted, is taken as a
        pointer to global memory of 4-byte elements (a kernel's parameter struct from a header
        carries its buffers so), and a note says so. Its element type is unknown ("?")."""
        head = f"`{var}`'s type {struct} is not defined in the file"
        for n in self.out.notes:
            if n.startswith(head):
                break       # one note a variable, at its first member
        else:
            self.out.notes.append(f"{head}: its subscripted members (`{var}.{field}[...]`) taken as global memory "
                                  "of 4-byte elements")
        return _Ptr(f"{var}.{field}", ("c", 0), "?", 4, "global")

    def _array_dims(self, arr) -> tuple:
        """A file-scope or `__shared__` array's dimensions: the parser's constants, else the size
        expression's value in this kernel (its template arguments: `tile[TILE][TILE + 1]`), a
        symbol's expression where none is given (bound like a scalar parameter), or None."""
        if not arr.size_nodes:
            return arr.dims
        out = []
        for d, node in zip(arr.dims, arr.size_nodes):
            if d is None and node is not None:
                e = self.expr_quiet(node)
                d = count(e[1]) if e[0] == "c" else (None if S.is_unknown(e) else e)
            out.append(d)
        return tuple(out)

    def _retype(self, p: _Ptr, type_text: str) -> _Ptr:
        base = type_text.replace("*", " ").replace("const", " ").replace("volatile", " ").replace("__restrict__", " ")
        base = self.resolve(" ".join(base.split()))
        size = self.size_of(base)
        if size is None:
            return p
        return _Ptr(p.base, p.offset, base, size, p.space)

    def _index(self, node) -> Expr:
        idx_list = node.child_by_field_id(F_INDICES)
        idx = code_children(idx_list) if idx_list is not None else ()
        if idx:
            return self.expr(idx[0])
        return S.UNKNOWN      # `a[]`: code under edit

    def address_of(self, target) -> _Ptr | None:
        """&a[i], &a[i][j], &s.f, &a[i].x: the pointer, without an access."""
        if target is None:
            return None
        if _KINDS[target.kind_id] == "subscript_expression":
            p = self.pointer(target.child_by_field_id(F_ARGUMENT))
            if p is None:
                return None
            idx = self._index(target)
            if len(p.dims) > 1:
                return _Ptr(p.base, S.binop("+", p.offset, S.binop("*", idx, _row_bytes(p.dims, p.elem_size))),
                            p.elem_type, p.elem_size, p.space, p.dims[1:])
            return _Ptr(p.base, S.binop("+", p.offset, S.binop("*", idx, ("c", p.elem_size))), p.elem_type,
                        p.elem_size, p.space)
        if _KINDS[target.kind_id] == "field_expression":
            return self._field_ptr(target)
        if _KINDS[target.kind_id] == "identifier":
            return self.pointer(target)
        if _KINDS[target.kind_id] == "parenthesized_expression":
            inner = code_children(target)
            return self.address_of(inner[-1]) if inner else None
        if _KINDS[target.kind_id] == "pointer_expression" and self._op(target) == "*":
            return self.pointer(target.child_by_field_id(F_ARGUMENT))
        return None

    def _field_ptr(self, node) -> _Ptr | None:
        arg = node.child_by_field_id(F_ARGUMENT)
        fld = node.child_by_field_id(F_FIELD)
        operator = self._op(node)
        base = self.pointer(arg) if operator == "->" else self.address_of(arg)
        if base is None or fld is None:
            return None
        fname = self.text(fld)
        fields = self.p.fields.get(base.elem_type)
        if fields and fname in fields:
            off, ftype = fields[fname]
            size = self.size_of(ftype) or 4
            return _Ptr(base.base, S.binop("+", base.offset, ("c", off)), ftype, size, base.space)
        comp = _COMPONENT_TYPE.get(base.elem_type)
        if comp is not None and fname in _VECTOR_COMPONENTS:
            size = type_size(comp) or 4
            return _Ptr(base.base, S.binop("+", base.offset, ("c", _VECTOR_COMPONENTS[fname] * size)), comp, size,
                        base.space)
        return None

    def load(self, node) -> Expr:
        ptr = self.address_of(node) if _KINDS[node.kind_id] != "pointer_expression" else self.pointer(node.child_by_field_id(F_ARGUMENT))
        if _KINDS[node.kind_id] == "field_expression" and ptr is None:
            return S.UNKNOWN
        if ptr is None:
            self._visit_children(node)
            return S.UNKNOWN
        return self.record(ptr, "load", node, ("c", 0))

    def store(self, node) -> None:
        if _KINDS[node.kind_id] == "pointer_expression" and self._op(node) == "*":
            ptr = self.pointer(node.child_by_field_id(F_ARGUMENT))
        else:
            ptr = self.address_of(node)
        if ptr is None:
            self._visit_children(node)
            return
        self.record(ptr, "store", node, ("c", 0))

    def _written(self, base: str) -> None:
        """A store or atomic through `base`: the values in registers it may have changed are gone."""
        loaded = self.loaded
        if loaded:
            restrict = self.restrict
            for key in [k for k in loaded if _may_alias(k[0], base, restrict)]:
                del loaded[key]

    def _visit_children(self, node) -> None:
        for c in node.named_children:
            if _KINDS[c.kind_id] not in ("field_identifier",):
                self.expr(c)

    def record(self, ptr: _Ptr, kind: str, node, extra: Expr, issued: bool = True) -> Expr:
        if ptr.dims and len(ptr.dims) > 1:
            return S.UNKNOWN  # a whole row, not an element
        row, column = node.start_point
        line, col = row + 1, column + 1
        address = self.bound(S.binop("+", ptr.offset, extra), ptr.base, line)
        loops, guards = self._tuple(self.loops), self._tuple(self.guards)
        if ptr.space == "global":
            # The compiler keeps a global value it loaded or stored in a register and loads it
            # again only after a store or atomic that may write it (`x[i] * x[i]`, `y[c] = e;
            # s += y[c];`: one request each, not two). Shared memory is left as written: warp-
            # synchronous code reads it through volatile pointers, which must load every time.
            # Keyed by the access's text (a short string to hash, where the address is a tree),
            # the address compared on a hit: the same text after a variable changed is no reuse.
            key = (ptr.base, self.text(node), extra, ptr.elem_size, id(loops))
            if kind == "load":
                hit = self.loaded.get(key)
                if hit is not None and hit[0] is loops and _dominates(hit[1], guards) and hit[2] == address:
                    return ("ld", ptr.base, address)
                self.loaded[key] = (loops, guards, address)
            else:
                self._written(ptr.base)
                if kind == "store":
                    self.loaded[key] = (loops, guards, address)
        acc = Access(ptr.base, ptr.space, kind, address, ptr.elem_size, ptr.elem_type, line, col,
                     self.written(node)[:80], loops, guards, self.function_stack[-1], issued)
        self.out.accesses.append(acc)
        self.blocks.append(self.breaks)
        node_id = f"access#{len(self.out.accesses) - 1}"
        # DefUseGraph.add_node(node_id, array=..., ...), inlined: the id is new (one per access)
        g = self.g
        succ = g.succ
        succ[node_id] = set()
        g.attrs[node_id] = {"array": ptr.base, "space": ptr.space, "kind": kind, "line": line}
        for s in S.symbols(address):   # DefUseGraph.add_edge(s, node_id), inlined
            got = succ.get(s)
            if got is None:
                got = succ[s] = set()
            got.add(node_id)
        if ptr.space == "shared":
            self.out.events.append(Event("access", acc, len(self.loops)))
        if ptr.elem_type in DOUBLE_TYPES:
            self.out.uses_double = True
        if ptr.elem_type in FLOAT_TYPES:
            self.out.uses_float = True
        return ("ld", ptr.base, address) if kind != "store" else S.UNKNOWN
