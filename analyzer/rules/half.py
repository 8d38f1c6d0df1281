"""Arithmetic on CUDA's 16-bit floats (`__half`, `__nv_bfloat16`) that the build rejects.

Every check here was tried with nvcc 13 (tests/test_rules.py: HALF_CASES): plainly, and with the
flags PyTorch's extension builds pass (torch.utils.cpp_extension.COMMON_NVCC_FLAGS).
"""
from __future__ import annotations

import re
from bisect import bisect_left

from ..directives import TORCH_DEFINES
from ..parse import _WORD_BYTES, FIELD, word_offsets
from .._records import once_per_program
from . import FileContext, Finding, function_name_at, node_edit, node_position, rule

# type classes: "h" __half, "h2" __half2, "b" __nv_bfloat16, "b2" __nv_bfloat162, "n" a builtin number
_CLASS = {"__half": "h", "half": "h", "__half2": "h2", "half2": "h2", "__nv_bfloat16": "b", "nv_bfloat16": "b",
          "__nv_bfloat162": "b2", "nv_bfloat162": "b2"}
for _t in ("float", "double", "int", "unsigned", "unsigned int", "long", "unsigned long", "long long",
           "unsigned long long", "short", "unsigned short", "char", "signed char", "unsigned char", "size_t",
           "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "long int",
           "long long int", "unsigned long long int", "signed", "signed int", "ptrdiff_t"):
    _CLASS[_t] = "n"
_VECTORS = frozenset(f"{b}{n}" for b in ("float", "double", "int", "uint", "short", "ushort", "char", "uchar",
                                         "long", "ulong", "longlong", "ulonglong") for n in (1, 2, 3, 4))
_NAMES = {"h": "__half", "h2": "__half2", "b": "__nv_bfloat16", "b2": "__nv_bfloat162"}
_SCALAR16 = frozenset(("h", "b"))

# what calls return: conversions and the 16-bit intrinsics (overloaded for __half and __nv_bfloat16:
# their result has the first argument's class)
_RETURNS = {"__float2half": "h", "__float2half_rn": "h", "__float2half_rz": "h", "__float2half_rd": "h",
            "__float2half_ru": "h", "__double2half": "h", "__int2half_rn": "h", "__uint2half_rn": "h",
            "__ushort_as_half": "h", "__short_as_half": "h", "__low2half": "h", "__high2half": "h",
            "__float2bfloat16": "b", "__float2bfloat16_rn": "b", "__float2bfloat16_rz": "b",
            "__double2bfloat16": "b", "__int2bfloat16_rn": "b", "__ushort_as_bfloat16": "b", "__low2bfloat16": "b",
            "__high2bfloat16": "b", "__half2float": "n", "__bfloat162float": "n", "__low2float": "n",
            "__high2float": "n", "__half2int_rn": "n", "__half2int_rz": "n", "__bfloat162int_rn": "n",
            "__half_as_ushort": "n", "__bfloat16_as_ushort": "n",
            "__floats2half2_rn": "h2", "__float22half2_rn": "h2", "__float2half2_rn": "h2", "__halves2half2": "h2",
            "__half2half2": "h2", "make_half2": "h2", "__floats2bfloat162_rn": "b2", "__float22bfloat162_rn": "b2",
            "__halves2bfloat162": "b2", "__bfloat162bfloat162": "b2", "make_bfloat162": "b2"}
_INTRINSICS = frozenset(("__hadd", "__hsub", "__hmul", "__hdiv", "__hneg", "__habs", "__hmax", "__hmin", "__hfma",
                         "__hadd_sat", "__hsub_sat", "__hmul_sat", "__hfma_relu", "__hmax_nan", "__hmin_nan",
                         "hsqrt", "hrsqrt", "hrcp", "hexp", "hexp2", "hexp10", "hlog", "hlog2", "hlog10", "hsin",
                         "hcos", "htanh", "hfloor", "hceil", "htrunc", "hrint"))
# float math a 16-bit value reaches only by a conversion (which PyTorch's builds leave out)
_FLOAT_MATH = frozenset(("expf", "exp2f", "expm1f", "logf", "log2f", "log1pf", "sqrtf", "rsqrtf", "fabsf", "fmaxf",
                         "fminf", "tanhf", "sinf", "cosf", "powf", "erff", "floorf", "ceilf", "roundf", "fmaf",
                         "__expf", "__logf", "__sinf", "__cosf", "__powf", "__fdividef", "exp", "log", "sqrt",
                         "fabs", "fmax", "fmin", "tanh", "pow", "erf"))
_ARITHMETIC = frozenset(("+", "-", "*", "/"))
_COMPARISON = frozenset(("<", ">", "<=", ">=", "==", "!="))
_HALF_INTRINSIC = {"+": "__hadd", "-": "__hsub", "*": "__hmul", "/": "__hdiv", "<": "__hlt", ">": "__hgt",
                   "<=": "__hle", ">=": "__hge", "==": "__heq", "!=": "__hne"}
_TO_FLOAT = {"h": "__half2float", "b": "__bfloat162float"}
_FROM_FLOAT = {"h": "__float2half", "b": "__float2bfloat16"}

TORCH_FLAGS = "-D__CUDA_NO_HALF_OPERATORS__, -D__CUDA_NO_HALF_CONVERSIONS__..."
_UNDEF = re.compile(rb"#\s*undef\s+__CUDA_NO_(?:HALF|BFLOAT16)")


def _resolved(program, text: str) -> str:
    """program.resolve_type(text), skipped where there is nothing to resolve (most types: `float`,
    `__half`)."""
    if text in _CLASS or (text not in program.aliases and " " not in text):
        return text
    return program.resolve_type(text)


def torch_half_build(program) -> bool:
    """Whether all of PyTorch's TORCH_DEFINES hold: on the build's command line (Program.macros:
    `lint` gives them for `load_inline` strings, RL's torch tasks for the candidate's extension) or
    `#define`d by the file, and the file does not take them back with `#undef`."""
    values, defined = program.macros.values, program.defines
    return all(d in values or d in defined for d in TORCH_DEFINES) and _UNDEF.search(program.source) is None


# where an operand's type decides whether the build takes it: the nodes the checks look at
_CHECKED = frozenset(("binary_expression", "assignment_expression", "unary_expression", "update_expression",
                      "cast_expression", "call_expression", "conditional_expression", "declaration",
                      "return_statement"))
# where the climb from a 16-bit value stops: a statement's or a body's own level
_STOP = frozenset(("expression_statement", "compound_statement", "if_statement", "for_statement", "while_statement",
                   "do_statement", "switch_statement", "case_statement", "function_definition", "translation_unit",
                   "lambda_expression", "declaration", "return_statement", "field_declaration_list"))
# the builtin number types' words, where a declaration of a builtin number may start (`float acc`)
_NUMBER_WORDS = re.compile(rb"\b(?:float[1-4]?|double[1-4]?|u?int[1-4]?|unsigned|signed|long|short|u?char[1-4]?|size_t|"
                           rb"ptrdiff_t|u?int(?:8|16|32|64)_t)\b")


@once_per_program
def half_problems(program) -> list[tuple[object, str, str, tuple]]:
    """(node, "all" or "torch", why the build fails, the edits that fix it) for each use of a 16-bit
    float in device code that fails every build ("all": mixed with a builtin number, which
    cuda_fp16.h's conversions make ambiguous) or only PyTorch's ("torch": an operator of __half or
    __half2, an implicit or cast conversion between a 16-bit float and a builtin number).

    Only the expressions around a 16-bit value are looked at: from each place a function names a
    16-bit variable, type or conversion, up to its statement (most device code has none)."""
    src = program.source
    if b"half" not in src and b"bfloat16" not in src:
        return []
    found = _anchor_words(src)      # every place the file names a 16-bit type or conversion
    if not found:
        return []
    starts = [at for at, _ in found]
    functions = [f for f in program.functions if f.kind != "host" and f.body is not None]
    file_scope = _FileScope(program, [at for at, is_type in found if is_type and not any(
        f.node.start_byte <= at < f.node.end_byte for f in program.functions)])
    aliases = [name.encode() for name, target in program.aliases.items() if _CLASS.get(_resolved(program, target))]
    out: list[tuple[object, str, str, tuple]] = []
    for f in functions:
        body = f.body
        start, end = body.start_byte, body.end_byte
        head = bisect_left(starts, f.node.start_byte)
        first, last = bisect_left(starts, start, head), bisect_left(starts, end, head)
        params = [(p.name, _resolved(program, p.type),
                   p.pointer + len(p.dims)) for p in f.params]
        held = [(p, t, d) for p, t, d in params if _CLASS.get(t) in _NAMES]
        alias_at = [at for a in aliases for at in word_offsets(src, a, start, end)] if aliases else []
        if not (held or last > head or alias_at or file_scope.halves):
            continue
        scope = _Scope(program, dict(file_scope.halves))
        for name, t, depth in params:
            scope.add(name, t, depth)
        rtype = f.node.child_by_field_id(FIELD.type)
        returns = _CLASS.get(_resolved(program, program.text(rtype))) if rtype is not None else None
        checker = _Checker(program, scope, returns, out, body, file_scope)
        # the declarations of the body's 16-bit variables first (declared with a type word or an
        # alias, or `auto` of a 16-bit value), then every place a 16-bit value stands
        anchors = starts[first:last] + alias_at
        for at in [at for at, is_type in found[first:last] if is_type] + alias_at + word_offsets(src, b"auto", start, end):
            checker.declare_at(at)
        for name, value in scope.table.items():
            if value is not None and value[0] in _NAMES:
                anchors += word_offsets(src, name.encode(), start, end)
        if returns in _NAMES:           # `__half f(float v) { return v; }`
            anchors += word_offsets(src, b"return", start, end)
        checker.around(sorted(set(anchors)))
    out.sort(key=lambda item: item[0].start_byte)
    return out


# where to look from: the 16-bit types' names, and the calls whose value is a 16-bit float (each
# holds "half" or "bfloat16"; an intrinsic such as `__hmul(a, b)` is reached from its arguments)
_TYPE_WORDS = frozenset(w.encode() for w in _CLASS if _CLASS[w] in _NAMES)
_ANCHOR_WORDS = _TYPE_WORDS | {n.encode() for n, c in _RETURNS.items() if c in _NAMES}


def _anchor_words(src: bytes) -> list[tuple[int, bool]]:
    """(where, whether it is a type's name) of each word of _ANCHOR_WORDS in the file, in order: found
    from its "half" or "bfloat16" with bytes.find (a pattern of them all is tried at every byte)."""
    out = []
    for part in (b"half", b"bfloat16"):
        at = src.find(part)
        while at >= 0:
            start, end = at, at + len(part)
            while start and src[start - 1] in _WORD_BYTES:
                start -= 1
            while end < len(src) and src[end] in _WORD_BYTES:
                end += 1
            word = src[start:end]
            if word in _ANCHOR_WORDS:
                out.append((start, word in _TYPE_WORDS))
            at = src.find(part, end)
    out.sort()
    return out



class _FileScope:
    """The file's own variables: the 16-bit ones (declared where a type word stands outside any
    function), and, asked for only where a name is not a function's, the rest."""

    def __init__(self, program, type_words: list[int]) -> None:
        self.program = program
        scope = _Scope(program)
        root = program.tree.root_node
        for at in type_words:
            d = root.descendant_for_byte_range(at, at + 1)
            for _ in range(3):
                if d is None or d.type == "declaration":
                    break
                d = d.parent
            if d is not None and d.type == "declaration" and d.parent is not None and d.parent.type in (
                    "translation_unit", "declaration_list"):
                scope.declare(d)
        self.halves = {k: v for k, v in scope.table.items() if v is not None and v[0] in _NAMES}
        self._all: dict | None = None

    def lookup(self, name: str):
        if self._all is None:
            scope = _Scope(self.program)
            for d in self.program.tree.root_node.children:
                if d.type == "declaration":
                    scope.declare(d)
            self._all = scope.table
        return self._all.get(name)


class _Scope:
    """Names of one function (and the file's globals) with their type class and indirection;
    a name declared twice with different types is unknown from then on."""

    def __init__(self, program, table: dict | None = None) -> None:
        self.program = program
        self.table: dict[str, tuple | None] = table if table is not None else {}

    def add(self, name: str, type_name: str, depth: int) -> None:
        value = (_CLASS.get(type_name) or ("v" if type_name in _VECTORS else None), depth)
        if name in self.table and self.table[name] != value:
            value = None
        self.table[name] = value

    def declare(self, decl, value_class=None) -> None:
        """Records a declaration's names (`auto` ones with the class `value_class` gives their value)."""
        program = self.program
        tnode = decl.child_by_field_id(FIELD.type)
        if tnode is None:
            return
        type_name = _resolved(program, program.text(tnode))
        for d in decl.children_by_field_id(FIELD.declarator):
            value = None
            if d.type == "init_declarator":
                value = d.child_by_field_id(FIELD.value)
                d = d.child_by_field_id(FIELD.declarator)
            depth = 0
            while d is not None and d.type in ("pointer_declarator", "array_declarator", "reference_declarator"):
                depth += d.type != "reference_declarator"
                d = d.child_by_field_id(FIELD.declarator) if d.type != "reference_declarator" else d.named_child(0)
            if d is None or d.type != "identifier":
                continue
            name = program.text(d)
            if type_name == "auto" and value_class is not None:
                self.table[name] = value_class(value) if value is not None else None
            else:
                self.add(name, type_name, depth)


class _Checker:
    def __init__(self, program, scope: _Scope, returns: str | None, out: list, body, file_scope: _FileScope) -> None:
        self.program = program
        self.scope = scope
        self.file_scope = file_scope
        self.returns = returns
        self.out = out
        self.body = body
        self.declared: set[int] = set()     # the declarations read (their start bytes)
        self.all_declared = False

    def path(self, at: int) -> list:
        """The nodes from the body down to the smallest one holding byte `at` (found downwards, child by
        child: tree-sitter's `parent` walks down from the root on every call)."""
        n = self.body
        out = [n]
        while n.child_count:
            c = n.first_child_for_byte(at)
            if c is None or c.start_byte > at:
                break
            out.append(c)
            n = c
        return out

    def declare_at(self, at: int) -> None:
        """Reads the declaration whose type stands at byte `at` (`__half h = ...`, `auto v = ...`)."""
        # the word, maybe inside a qualified or template type, in the declaration
        n = next((d for d in reversed(self.path(at)[-4:]) if d.type == "declaration"), None)
        if n is not None and n.start_byte not in self.declared:
            self.declared.add(n.start_byte)
            self.scope.declare(n, self.value)

    def declare_all(self) -> None:
        """Reads the body's declarations of builtin numbers (`float acc`), asked for only where a name
        that meets a 16-bit value is not known yet."""
        self.all_declared = True
        for m in _NUMBER_WORDS.finditer(self.program.source, self.body.start_byte, self.body.end_byte):
            self.declare_at(m.start())

    def report(self, node, builds: str, message: str, fix: tuple = ()) -> None:
        if self.program.surely_compiled(node):
            self.out.append((node, builds, message, fix))

    def to_float(self, operand, c: str) -> tuple:
        """The edit that converts a 16-bit operand to float explicitly (`__half2float(x[i])`)."""
        if c not in _TO_FLOAT:
            return ()
        return node_edit(self.program, operand, f"{_TO_FLOAT[c]}({self.program.text(operand)})")

    def text(self, node) -> str:
        t = self.program.text(node)
        return t if len(t) <= 60 and "\n" not in t else t[:57].split("\n")[0] + "..."

    def around(self, anchors: list[int]) -> None:
        """Checks the expressions each anchor (a byte offset of a 16-bit name) stands in, from it up
        to its statement, each once."""
        seen: set = set()
        for at in anchors:
            for n in reversed(self.path(at)):
                t = n.type
                if t in _CHECKED:
                    key = (n.start_byte, n.end_byte, t)
                    if key in seen:
                        break           # checked from an earlier anchor, and so is what is above it
                    seen.add(key)
                    self.check(n, t)
                if t in _STOP:
                    break

    def check(self, n, t: str) -> None:
        if t == "declaration":
            tnode = n.child_by_field_id(FIELD.type)
            declared_type = _resolved(self.program, self.program.text(tnode)) if tnode is not None else ""
            for d in n.children_by_field_id(FIELD.declarator):
                if d.type != "init_declarator":
                    continue
                value = d.child_by_field_id(FIELD.value)
                inner = d.child_by_field_id(FIELD.declarator)
                declared = _CLASS.get(declared_type) if inner is not None and inner.type == "identifier" else None
                if value is not None and declared is not None and value.type != "initializer_list":
                    self.converted(value, declared, self.value(value), d)
        elif t == "binary_expression":
            self.binary(n)
        elif t == "assignment_expression":
            self.assignment(n)
        elif t in ("unary_expression", "update_expression"):
            self.unary(n)
        elif t == "cast_expression":
            target = self.type_class(n.child_by_field_id(FIELD.type))
            value = n.child_by_field_id(FIELD.value)
            if target is not None and value is not None:
                self.converted(value, target, self.value(value), n, cast=True)
        elif t == "call_expression":
            self.call(n)
        elif t == "conditional_expression":
            self.conditional(n)
        elif t == "return_statement" and self.returns is not None and n.named_child_count:
            value = n.named_child(0)
            self.converted(value, self.returns, self.value(value), value)

    # --- types -----------------------------------------------------------------------------------

    def type_class(self, descriptor) -> str | None:
        """The class of a type descriptor (`float`, `__half`), not a pointer's."""
        if descriptor is None or descriptor.child_by_field_id(FIELD.declarator) is not None:
            return None
        tnode = descriptor.child_by_field_id(FIELD.type)
        return _CLASS.get(_resolved(self.program, self.program.text(tnode))) if tnode is not None else None

    def value(self, node) -> tuple | None:
        """(class, indirection) of an expression's value, where the file says it; else None."""
        t = node.type
        if t == "identifier":
            name = self.program.text(node)
            table = self.scope.table
            if name not in table and not self.all_declared:
                self.declare_all()
            if name in table:
                return table[name]
            if name in self.program.constants:
                return ("n", 0)         # a #define's or constexpr's number
            return self.file_scope.lookup(name)
        if t in ("number_literal", "char_literal", "sizeof_expression"):
            return ("n", 0)
        if t == "subscript_expression":
            base = self.value(node.child_by_field_id(FIELD.argument))
            return (base[0], base[1] - 1) if base is not None and base[1] > 0 else None
        if t == "parenthesized_expression":
            inner = [c for c in node.named_children if c.type != "comment"]
            return self.value(inner[0]) if len(inner) == 1 else None
        if t == "field_expression":
            base = self.value(node.child_by_field_id(FIELD.argument))
            op = node.child_by_field_id(FIELD.operator)
            field = self.program.text(node.child_by_field_id(FIELD.field))
            if base is None or op is None or op.type != "." or base[1] != 0 or field not in ("x", "y", "z", "w"):
                return None
            return {"h2": ("h", 0), "b2": ("b", 0), "v": ("n", 0)}.get(base[0])
        if t == "pointer_expression":
            base = self.value(node.child_by_field_id(FIELD.argument))
            op = self.program.text(node.child_by_field_id(FIELD.operator))
            if base is None:
                return None
            return (base[0], base[1] + 1) if op == "&" else (base[0], base[1] - 1) if base[1] > 0 else None
        if t == "call_expression":
            fn = node.child_by_field_id(FIELD.function)
            if fn is None:
                return None
            cast = self._functional_cast(fn)
            if cast is not None:
                return (cast, 0)
            if fn.type == "identifier":
                name = self.program.text(fn)
                if name in _RETURNS:
                    return (_RETURNS[name], 0)
                if name in _FLOAT_MATH:
                    return ("n", 0)
                if name in _INTRINSICS:
                    args = [c for c in node.child_by_field_id(FIELD.arguments).named_children if c.type != "comment"]
                    first = self.value(args[0]) if args else None
                    return first if first is not None and first[1] == 0 and first[0] in ("h", "b", "h2", "b2") else None
                return None
            if fn.type == "template_function" and self.program.text(fn.child_by_field_id(FIELD.name)) in (
                    "static_cast", "reinterpret_cast", "const_cast"):
                args = fn.child_by_field_id(FIELD.arguments)
                desc = args.named_child(0) if args is not None and args.named_child_count == 1 else None
                return self._descriptor(desc)
            return None
        if t == "cast_expression":
            return self._descriptor(node.child_by_field_id(FIELD.type))
        if t == "binary_expression":
            op = self.program.text(node.child_by_field_id(FIELD.operator))
            if op in _COMPARISON or op in ("&&", "||"):
                return ("n", 0)
            left = self.value(node.child_by_field_id(FIELD.left))
            right = self.value(node.child_by_field_id(FIELD.right))
            if left is not None and left == right and left[1] == 0:
                return left
            return None
        if t == "unary_expression":
            op = self.program.text(node.child_by_field_id(FIELD.operator))
            return ("n", 0) if op == "!" else self.value(node.child_by_field_id(FIELD.argument))
        if t == "conditional_expression":
            a = node.child_by_field_id(FIELD.consequence)
            b = node.child_by_field_id(FIELD.alternative)
            va = self.value(a) if a is not None else None
            return va if va is not None and b is not None and va == self.value(b) else None
        return None

    def _functional_cast(self, fn) -> str | None:
        """The class of `float(...)`, `__half(...)`: a call whose function is a type's name (not
        one the function or file declares as a variable)."""
        if fn.type not in ("primitive_type", "identifier", "type_identifier", "sized_type_specifier"):
            return None
        name = self.program.text(fn)
        if fn.type != "primitive_type" and name in self.scope.table:
            return None
        return _CLASS.get(_resolved(self.program, name))

    def _descriptor(self, desc) -> tuple | None:
        if desc is None or desc.type != "type_descriptor":
            return None
        tnode = desc.child_by_field_id(FIELD.type)
        if tnode is None:
            return None
        cls = _CLASS.get(_resolved(self.program, self.program.text(tnode)))
        if cls is None:
            return None
        depth = 0
        d = desc.child_by_field_id(FIELD.declarator)
        while d is not None:
            if d.type not in ("abstract_pointer_declarator",):
                return None
            depth += 1
            d = d.child_by_field_id(FIELD.declarator)
        return (cls, depth)

    # --- checks ----------------------------------------------------------------------------------

    def binary(self, n) -> None:
        op = self.program.text(n.child_by_field_id(FIELD.operator))
        if op not in _ARITHMETIC and op not in _COMPARISON:
            return
        left, right = n.child_by_field_id(FIELD.left), n.child_by_field_id(FIELD.right)
        lv, rv = self.value(left), self.value(right)
        lc = lv[0] if lv is not None and lv[1] == 0 else None
        rc = rv[0] if rv is not None and rv[1] == 0 else None
        mixed = next(((c, o, side) for c, o, side in ((lc, rc, left), (rc, lc, right)) if c in _NAMES and o == "n"),
                     None)
        if mixed is not None:
            c = mixed[0]
            fix = (f"convert explicitly, e.g. `{_TO_FLOAT[c]}(...)` to compute in float" if c in _TO_FLOAT
                   else "convert the number to the vector type first")
            what = "more than one operator" if c in _SCALAR16 else "no operator"
            self.report(n, "all", f"`{self.text(n)}` mixes `{_NAMES[c]}` with a builtin number: the build fails "
                        f"({what} \"{op}\" matches these operands); {fix}", self.to_float(mixed[2], c))
        elif lc is not None and rc is not None and (lc in ("h", "h2") or rc in ("h", "h2")):
            # both sides known: in a template, `(T)0.5f * h` waits for T (c10::Half has operators of its own)
            c = lc if lc in ("h", "h2") else rc
            name = _HALF_INTRINSIC[op] + ("2" if c == "h2" else "")
            self.report(n, "torch", f"`{self.text(n)}` uses `{_NAMES[c]}`'s operator {op}, which PyTorch's extension "
                        f"builds take away ({TORCH_FLAGS}): the build fails; use `{name}(a, b)`")

    def assignment(self, n) -> None:
        op = self.program.text(n.child_by_field_id(FIELD.operator))
        left, right = n.child_by_field_id(FIELD.left), n.child_by_field_id(FIELD.right)
        lv, rv = self.value(left), self.value(right)
        lc = lv[0] if lv is not None and lv[1] == 0 else None
        rc = rv[0] if rv is not None and rv[1] == 0 else None
        if op == "=":
            if lc is not None:
                self.converted(right, lc, rv, n)
            return
        if op[:-1] not in _ARITHMETIC:
            return
        if lc == "n" and rc in _SCALAR16:
            self.report(n, "all", f"`{self.text(n)}` adds a `{_NAMES[rc]}` into a builtin number: the build fails "
                        f"(more than one conversion function from \"{_NAMES[rc]}\" to a built-in type applies); "
                        f"convert it: `{_TO_FLOAT[rc]}(...)`", self.to_float(right, rc))
        elif lc in ("h", "h2") and rc is not None:
            name = _HALF_INTRINSIC[op[:-1]] + ("2" if lc == "h2" else "")
            self.report(n, "torch", f"`{self.text(n)}` uses `{_NAMES[lc]}`'s operator {op}, which PyTorch's extension "
                        f"builds take away ({TORCH_FLAGS}): the build fails; write `x = {name}(x, y)`")
        elif lc == "b" and rc == "n":
            self.report(n, "torch", f"`{self.text(n)}` converts a builtin number to `__nv_bfloat16`, which PyTorch's "
                        f"extension builds take away ({TORCH_FLAGS}): the build fails; convert it with "
                        "`__float2bfloat16(...)`")

    def conditional(self, n) -> None:
        a, b = n.child_by_field_id(FIELD.consequence), n.child_by_field_id(FIELD.alternative)
        va = self.value(a) if a is not None else None
        vb = self.value(b) if b is not None else None
        if va is None or vb is None or va[1] != 0 or vb[1] != 0:
            return
        side = a if va[0] in _SCALAR16 and vb[0] == "n" else b if vb[0] in _SCALAR16 and va[0] == "n" else None
        if side is not None:
            c = va[0] if side is a else vb[0]
            self.report(n, "all", f"`{self.text(n)}` chooses between a `{_NAMES[c]}` and a builtin number: the build "
                        f"fails (ambiguous \"?\" operation: each converts to the other); convert one side, e.g. "
                        f"`{_TO_FLOAT[c]}(...)`", self.to_float(side, c))

    def unary(self, n) -> None:
        arg = n.child_by_field_id(FIELD.argument)
        op = n.child_by_field_id(FIELD.operator)
        v = self.value(arg) if arg is not None else None
        if v is None or v[1] != 0 or v[0] not in ("h", "h2") or op is None:
            return
        op = self.program.text(op)
        if op not in ("-", "++", "--"):
            return
        fix = "`__hneg(x)`" if op == "-" else "`x = __hadd(x, __float2half(1.0f))`"
        self.report(n, "torch", f"`{self.text(n)}` uses `{_NAMES[v[0]]}`'s operator {op}, which PyTorch's extension builds "
                    f"take away ({TORCH_FLAGS}): the build fails; use {fix}")

    def converted(self, value, target: str, v: tuple | None, where, cast: bool = False) -> None:
        """A value of class v[0] becoming `target` (an initialization, assignment, cast, return)."""
        if v is None or v[1] != 0:
            return
        source = v[0]
        if target in _SCALAR16 and source == "n":
            fix = f"`{_FROM_FLOAT[target]}(...)`"
        elif target == "n" and source in _SCALAR16:
            fix = f"`{_TO_FLOAT[source]}(...)`"
        else:
            return
        how = "casts" if cast else "converts"
        frm = "a builtin number" if source == "n" else f"`{_NAMES[source]}`"
        to = "a builtin number" if target == "n" else f"`{_NAMES[target]}`"
        self.report(where, "torch", f"`{self.text(where)}` {how} {frm} to {to}, a conversion PyTorch's extension builds "
                    f"take away ({TORCH_FLAGS}): the build fails; use {fix}")

    def call(self, n) -> None:
        fn = n.child_by_field_id(FIELD.function)
        cast = self._functional_cast(fn) if fn is not None else None
        if cast is not None:
            values = [c for c in n.child_by_field_id(FIELD.arguments).named_children if c.type != "comment"]
            if len(values) == 1:
                self.converted(values[0], cast, self.value(values[0]), n, cast=True)
            return
        if fn is None or fn.type != "identifier":
            if fn is not None and fn.type == "template_function" and self.program.text(
                    fn.child_by_field_id(FIELD.name)) == "static_cast":
                args = fn.child_by_field_id(FIELD.arguments)
                desc = args.named_child(0) if args is not None and args.named_child_count == 1 else None
                target = self._descriptor(desc)
                values = [c for c in n.child_by_field_id(FIELD.arguments).named_children if c.type != "comment"]
                if target is not None and target[1] == 0 and len(values) == 1:
                    self.converted(values[0], target[0], self.value(values[0]), n, cast=True)
            return
        name = self.program.text(fn)
        if name not in _FLOAT_MATH and name not in _INTRINSICS:
            return
        for a in n.child_by_field_id(FIELD.arguments).named_children:
            if a.type == "comment":
                continue
            v = self.value(a)
            if v is None or v[1] != 0:
                continue
            if name in _FLOAT_MATH and v[0] in _SCALAR16:
                self.report(a, "torch", f"`{name}({self.text(a)})` passes a `{_NAMES[v[0]]}` where a float is taken, a "
                            f"conversion PyTorch's extension builds take away ({TORCH_FLAGS}): the build fails; use "
                            f"`{_TO_FLOAT[v[0]]}(...)`")
            elif name in _INTRINSICS and v[0] == "n":
                self.report(a, "torch", f"`{name}(...)` is passed the builtin number `{self.text(a)}` where a 16-bit "
                            f"float is taken, a conversion PyTorch's extension builds take away ({TORCH_FLAGS}): the "
                            "build fails; convert it with `__float2half(...)` / `__float2bfloat16(...)`")


@rule("CP706", "half-mixed-with-number", "error",
      "A `__half` or `__nv_bfloat16` value in an operator with a builtin number (`x[i] * 2.0f`), which does not compile.",
      """
      What it does
          Finds binary operators (`+ - * /` and comparisons) with one operand of a 16-bit float
          type (`__half`, `__nv_bfloat16`, their vector forms) and the other a builtin number
          (a literal, a `float` or `int` variable), and `f += h` into a builtin number. Types are
          taken from the file's declarations; where one is unknown (templates, `auto` of an
          unknown call) nothing is said.

      Why is this bad?
          cuda_fp16.h and cuda_bf16.h convert both ways (`__half` to `float` and back), so
          `h * 2.0f` has several operators that match: nvcc and NVRTC fail with "more than one
          operator "*" matches these operands" ("no operator" for `__half2`). Generated
          half-precision kernels often write it.

      Example
          __global__ void scale(__half* y, const __half* x, float a) {
            int i = blockIdx.x * blockDim.x + threadIdx.x;
            y[i] = x[i] * a;

      Use instead
            y[i] = __float2half(__half2float(x[i]) * a);      // or __hmul(x[i], __float2half(a))
          `--fix` converts the 16-bit operand to float (`__half2float(x[i]) * a`).
      """, scope="file", fixable=True)
def half_mixed_with_number(ctx: FileContext, r):
    program = ctx.program
    for node, builds, message, fix in half_problems(program):
        if builds == "all":
            yield Finding(r.code, r.name, r.severity, message, program.path, *node_position(program, node),
                          function_name_at(program, node.start_byte), {}, fix)


@rule("CP707", "half-operator-in-torch-extension", "error",
      "`__half` operators or implicit 16-bit float conversions in a PyTorch extension's build, which takes them away.",
      """
      What it does
          Where the build defines PyTorch's `__CUDA_NO_HALF_OPERATORS__` and its three siblings
          (the CUDA strings of `load_inline(...)` in a .py file, unless its `extra_cuda_cflags`
          take them back with `-U`; RL's torch tasks; a file that `#define`s the four itself),
          finds `__half` and `__half2` operators (`a + b`, `a < b`, `-a`, `a += b`) and
          conversions between `__half` / `__nv_bfloat16` and builtin numbers (`float f = h;`,
          `h = 0.0f;`, `(float)h`, `expf(h)`, returning one as the other). `__nv_bfloat16`'s own
          operators stay (PyTorch's flags keep them). A .cu file's build flags are not known
          otherwise (projects such as vLLM build their extensions with `-U...`): not checked.

      Why is this bad?
          torch.utils.cpp_extension builds with `-D__CUDA_NO_HALF_OPERATORS__
          -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_BFLOAT16_CONVERSIONS__
          -D__CUDA_NO_HALF2_OPERATORS__`: cuda_fp16.h then has no such operators or conversions
          and the build fails ("no operator "+" matches these operands", "no suitable conversion
          function from "__half" to "float" exists"), though the same kernel builds alone.

      Example
          // cuda_src = "..." passed to load_inline(cuda_sources=cuda_src, ...)
          __global__ void add(__half* y, const __half* a, const __half* b) {
            y[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x];

      Use instead
            y[threadIdx.x] = __hadd(a[threadIdx.x], b[threadIdx.x]);
      """, scope="file")
def half_operator_in_torch_extension(ctx: FileContext, r):
    program = ctx.program
    if not torch_half_build(program):
        return
    for node, builds, message, _ in half_problems(program):
        if builds == "torch":
            yield Finding(r.code, r.name, r.severity, message, program.path, *node_position(program, node),
                          function_name_at(program, node.start_byte))
