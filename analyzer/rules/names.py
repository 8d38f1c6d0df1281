"""Names that device code uses and nothing declares (NVRTC: `identifier "expff" is undefined`),
members that threadIdx, blockIdx, blockDim and gridDim do not have (`threadIdx.w`: `class "uint3"
has no member "w"`), and writes through a kernel's `const T*` parameter: the slips of a model's
reply that the analysis reads past (an unknown name is an unknown value; a store is a store), which
the reward's compile gate must fail without running a compiler.

A name is judged only where every name the code can see is known: a file that includes nothing but
the CUDA toolkit's own headers, whose words (the toolkit's include folder, its crt/ and
cooperative_groups/ folders: read once, cached) and the file's own are all there is. A name is
undefined where it stands once in the file (comments and strings aside: a declaration would be a
second time), as a use (not a declarator, a label, a qualified name's part or a `#if` branch's code)
in a kernel or device function's body, and in no toolkit header. Lenient by design: a word some
header happens to contain is taken as known.
"""
from __future__ import annotations

import collections
import hashlib
import os
import re

from .. import _fresh
from ..parse import FIELD, word_offsets

_scan = _fresh.accelerator("analyzer._scan")
_WORD = re.compile(rb"[A-Za-z_]\w*")
# every byte that is no word byte (ASCII letters, digits, `_`) to a space
_WORD_BYTES_ONLY = bytes(c if chr(c).isascii() and (chr(c).isalnum() or c == 95) else 32 for c in range(256))
INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]', re.M)    # an #include and its name
_COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)
_NOT_CODE = re.compile(rb'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_BUILTIN_MEMBER = re.compile(rb"\b(threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*([A-Za-z_]\w*)")
_BUILTIN_TYPES = {b"threadIdx": "uint3", b"blockIdx": "uint3", b"blockDim": "dim3", b"gridDim": "dim3"}
# the compiler's own names, in no header
_PREDEFINED = frozenset(w.encode() for w in (
    "__CUDA_ARCH__ __CUDACC__ __CUDACC_RTC__ __NVCC__ __cplusplus __FILE__ __LINE__ __func__ __FUNCTION__ "
    "__PRETTY_FUNCTION__ __COUNTER__ __DATE__ __TIME__ __has_include __restrict__ __restrict restrict "
    "__forceinline__ __noinline__ __inline__ __align__ __grid_constant__ __managed__ override final "
    "size_t ptrdiff_t nullptr_t NULL").split())
# parents of a name that declare it (and whose other children are uses)
_DECLARING = ("declaration", "parameter_declaration", "optional_parameter_declaration", "field_declaration",
              "init_declarator", "pointer_declarator", "reference_declarator", "array_declarator",
              "function_declarator")
# parents under which a name is declared or not a plain use
_NOT_A_USE = ("structured_binding_declarator", "enumerator", "labeled_statement", "type_parameter_declaration",
              "optional_type_parameter_declaration", "variadic_type_parameter_declaration", "struct_specifier",
              "class_specifier", "union_specifier", "enum_specifier", "alias_declaration", "type_definition",
              "namespace_definition", "lambda_capture_specifier", "using_declaration", "qualified_identifier",
              "goto_statement", "attribute", "concept_definition", "requires_clause")

_WORDS: dict[str, tuple[frozenset, frozenset]] = {}     # include folder -> (header paths, words)
_VOCABULARY = 2     # how the headers' words are read (the disk cache's key)


def _toolkit() -> tuple[frozenset, frozenset] | None:
    """(the toolkit's header paths as `#include` names them, every word of their code, comments and
    strings aside), or None where no toolkit is found. Read once a process (~0.7 s from the headers);
    kept on disk, keyed by the folder and its headers' times."""
    from ..profile.toolkit import cuda_include_dir

    root = cuda_include_dir()
    if not root:
        return None
    hit = _WORDS.get(root)
    if hit is not None:
        return hit
    files = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        top = rel.split(os.sep)[0]
        if rel != "." and top not in ("crt", "cooperative_groups"):
            dirnames[:] = []
            continue
        files += [os.path.join(dirpath, f) for f in filenames if f.endswith((".h", ".hpp"))]
    files.sort()
    headers = frozenset(os.path.relpath(f, root).replace(os.sep, "/") for f in files)
    stamp = hashlib.sha256(repr((_VOCABULARY, root, [(f, os.path.getmtime(f)) for f in files])).encode()).hexdigest()[:16]
    from ..cache import cache_root

    path = cache_root() / "toolkit_words" / f"{stamp}.txt"
    try:
        words = frozenset(path.read_bytes().split())
    except OSError:
        found: set[bytes] = set()
        for f in files:
            with open(f, "rb") as fh:
                found.update(_WORD.findall(_NOT_CODE.sub(b" ", fh.read())))    # code's words, not comments'
        words = frozenset(found)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(b"\n".join(sorted(words)))
            os.replace(tmp, path)
        except OSError:
            pass        # a read-only cache: read the headers again next time
    _WORDS[root] = (headers, words)
    return _WORDS[root]


def strip_comments(source: str) -> str:
    """Comments blanked to spaces of their length, string literals made `""`: the code the reward's
    gates read (a C loop in analyzer/_scan.pyx where built; this regular expression is its reference)."""
    if _scan is not None:
        return _scan.strip_comments(source)
    return _COMMENT_OR_STRING.sub(lambda m: " " * len(m.group(0)) if not m.group(0).startswith('"') else '""', source)


def _includes(src: bytes) -> list[bytes]:
    """The names the file's `#include`s give (found by `include`, then read at their line's start:
    a scan of every line by the regular expression costs 3x)."""
    out = []
    at = src.find(b"include")
    while at >= 0:
        m = INCLUDE.match(src, src.rfind(b"\n", 0, at) + 1)
        if m is not None and m.start(1) > at:
            out.append(m.group(1))
        at = src.find(b"include", at + 7)
    return out


def _code(src: bytes) -> bytes:
    """src with comments, strings and character literals blanked (offsets and lines kept)."""
    return _NOT_CODE.sub(lambda m: re.sub(rb"[^\n]", b" ", m.group()), src)


def _line(src: bytes, offset: int) -> int:
    return src.count(b"\n", 0, offset) + 1


def builtin_member_problems(program) -> list[str]:
    """`threadIdx.w`, `blockDim.count`: members uint3 and dim3 do not have (a file that defines
    threadIdx itself, a host emulation, is not judged)."""
    src = program.original
    # nearly every file: each `Idx.`/`Dim.` is an `.x`, `.y` or `.z`, and none is spaced (counted, not scanned)
    if b"Idx " not in src and b"Dim " not in src and all(
            src.count(b + b".") == src.count(b + b".x") + src.count(b + b".y") + src.count(b + b".z") for b in (b"Idx", b"Dim")):
        return []
    code = _code(src)
    out = []
    for m in _BUILTIN_MEMBER.finditer(code):
        if m.group(2) in (b"x", b"y", b"z"):
            continue
        if re.search(rb"^[ \t]*#[ \t]*define[ \t]+" + m.group(1) + rb"\b", src, re.M):
            continue
        if code[code.rfind(b"\n", 0, m.start()) + 1:m.start()].lstrip().startswith(b"#"):
            continue
        out.append(f'line {_line(src, m.start())}: class "{_BUILTIN_TYPES[m.group(1)]}" has no member '
                   f'"{m.group(2).decode()}" (`{m.group(0).decode()}`)')
    return out


def undefined_names(program) -> list[tuple[int, str, str]]:
    """(line, name, function) for each name a kernel or device function uses that nothing declares;
    [] where the file includes a header outside the toolkit, pastes tokens (`##`), or no toolkit
    is here to say which names are CUDA's."""
    src = program.original
    if b"##" in src:
        return []
    # the words of the code, as runs of word bytes: a translate and a split, ~4x faster than a regex's findall
    code = strip_comments(src.decode("utf-8", "replace")).encode()
    counts = collections.Counter(code.translate(_WORD_BYTES_ONLY).split())
    singles = [w for w, c in counts.items() if c == 1 and not w[:1].isdigit()]
    if not singles:
        return []
    toolkit = _toolkit()
    if toolkit is None:
        return []
    headers, words = toolkit
    singles = [w for w in singles if w not in words and w not in _PREDEFINED and not w.startswith(b"__builtin_")]
    if not singles or any(inc.decode("utf-8", "replace") not in headers for inc in _includes(src)):
        return []
    bodies = [(f.body.start_byte, f.body.end_byte, f) for f in program.functions if f.kind != "host" and f.body is not None]
    parsed = program.source
    root = program.tree.root_node
    out = []
    for w in singles:
        for at in word_offsets(parsed, w):
            owner = next((f for a, b, f in bodies if a <= at < b), None)
            if owner is None:
                continue
            node = root.descendant_for_byte_range(at, at + len(w))
            if node is None or node.type not in ("identifier", "type_identifier") or node.end_byte != at + len(w):
                continue
            if _a_use(node, owner.body):
                out.append((_line(src, program.original_offset(at)), w.decode(), owner.name))
    return sorted(out)


def _a_use(node, body) -> bool:
    """Whether an identifier in a function body is a use of a name (not one it declares, not a part
    of a qualified name, not code under a `#if` of the body, not a preprocessor line)."""
    cur, parent = node, node.parent
    while parent is not None:
        t = parent.type
        if t in _NOT_A_USE or t.startswith("preproc_"):
            return False
        if t in _DECLARING:
            declared = parent.child_by_field_name("declarator")
            if declared is None or declared.start_byte != cur.start_byte or declared.end_byte != cur.end_byte:
                # the type of a declaration, an initializer, an array's size: a use
                return t not in ("declaration", "parameter_declaration", "optional_parameter_declaration",
                                 "field_declaration") or _is_type_of(parent, cur)
            if t in ("declaration", "parameter_declaration", "optional_parameter_declaration", "field_declaration",
                     "init_declarator"):
                return False        # the name declared
            cur, parent = parent, parent.parent     # a declarator inside a declarator: still the name
            continue
        if parent.start_byte == body.start_byte and parent.end_byte == body.end_byte:
            return True
        cur, parent = parent, parent.parent
    return True


def _is_type_of(declaration, node) -> bool:
    """Whether `node` is (in) the type of a declaration with several declarators (`int a, b;`: the
    second is no `declarator` field's first)."""
    t = declaration.child_by_field_name("type")
    return t is not None and t.start_byte <= node.start_byte and node.end_byte <= t.end_byte


def undefined_name_problems(program) -> list[str]:
    """The build's complaints about names, as NVRTC words them, with where."""
    out = [f'line {line}: identifier "{name}" is undefined (in {fn})' for line, name, fn in undefined_names(program)]
    return out + builtin_member_problems(program)


# a cast to a pointer without const of a name (`reinterpret_cast<float4*>(y)`), and a WMMA store to one
_CONST_CASTS = re.compile(r"\b(?:reinterpret|static)_cast\s*<\s*(?!const\b)[\w:\s]*\*\s*>\s*\(\s*&?\s*([A-Za-z_]\w*)\b"
                          r"|\bstore_matrix_sync\s*\(\s*&?\s*([A-Za-z_]\w*)\b")


def const_pointer_writes(contexts) -> list[str]:
    """Stores and atomics a kernel writes through its own `const T*` parameter as written (`y[i] = v`,
    `*(y + 1) = v`, `atomicAdd(&y[0], v)`; a cast, `((float*)y)[i]`, takes the const away): NVRTC
    refuses them ("expression must be a modifiable lvalue", no atomicAdd for a const pointer)."""
    out = []
    for ctx in contexts:
        const = {p.name for p in ctx.kernel.params if p.pointer == 1 and p.const}
        if not const:
            continue
        body = ctx.kernel.body
        text = ctx.program.text(body) if body is not None else ""
        for m in _CONST_CASTS.finditer(text) if "_cast" in text or "store_matrix_sync" in text else ():
            name = m.group(1) or m.group(2)
            if name not in const:
                continue
            line = body.start_point[0] + text.count("\n", 0, m.start()) + 1
            what = ("reinterpret_cast cannot cast away const or other type qualifiers" if m.group(1) else
                    'no instance of overloaded function "nvcuda::wmma::store_matrix_sync" matches the argument list')
            out.append(f"line {line}: `{m.group(0).strip()}` on {name}, a `const {ctx.kernel.param(name).type}*` "
                       f"parameter of {ctx.kernel.name}: the build fails (\"{what}\"); drop the const")
        for a in ctx.accesses.accesses:
            if a.kind not in ("store", "atomic") or a.array not in const or a.function != ctx.kernel.name:
                continue
            name = re.escape(a.array)
            if a.kind == "store" and re.match(rf"(?:{name}\s*\[|\*\s*\(?\s*{name}\b)", a.text):
                out.append(f"line {a.line}: `{a.text}` writes through {a.array}, a `const {ctx.kernel.param(a.array).type}*` "
                           f"parameter of {ctx.kernel.name}: the build fails (\"expression must be a modifiable lvalue\"); "
                           "drop the const")
            elif a.kind == "atomic" and re.match(rf"\w+\s*\(\s*(?:&\s*{name}\s*\[|{name}\s*[,+])", a.text):
                out.append(f"line {a.line}: `{a.text}` updates {a.array}, a `const {ctx.kernel.param(a.array).type}*` "
                           f"parameter of {ctx.kernel.name}: the build fails (no atomic for a const pointer); drop the const")
    return out


# ---------------------------------------------------------------- locals used out of their scope

# the nodes that open a scope for the locals declared in them (a for's init, an if's condition, a block)
_SCOPE_TYPES = frozenset(("compound_statement", "for_statement", "for_range_loop", "if_statement", "while_statement",
                          "switch_statement", "do_statement", "lambda_expression", "catch_clause"))
_BUILTIN_NAMES = frozenset((b"threadIdx", b"blockIdx", b"blockDim", b"gridDim", b"warpSize"))
_DECLARATORS = ("init_declarator", "pointer_declarator", "array_declarator", "reference_declarator",
                "parenthesized_declarator")
_LOCALS_QUERY: dict = {}     # language -> QueryCursor of the locals' declarations


def _locals_cursor(language):
    cursor = _LOCALS_QUERY.get(language)
    if cursor is None:
        import tree_sitter as ts

        query = ts.Query(language, "(declaration) @d (for_range_loop) @r (parameter_declaration) @p "
                                   "(structured_binding_declarator) @s")
        cursor = _LOCALS_QUERY[language] = ts.QueryCursor(query)
    return cursor


def _declared_identifier(decl):
    """The identifier a declarator declares (`*p`, `a[4]`, `&r`, `x = 1`), or None (a qualified
    name, a structured binding...)."""
    while decl is not None:
        t = decl.type
        if t == "identifier":
            return decl
        if t not in _DECLARATORS:
            return None
        if t == "reference_declarator" or t == "parenthesized_declarator":
            decl = next((c for c in reversed(decl.named_children) if c.type != "comment"), None)
        else:
            decl = decl.child_by_field_id(FIELD.declarator)
    return None


def _scope_of(node):
    parent = node.parent
    while parent is not None and parent.type not in _SCOPE_TYPES:
        parent = parent.parent
    return parent


def function_locals(program, body) -> tuple[dict, set]:
    """({name: [(start of its declarator's name, end of its scope)]} of the locals a function body
    declares, the names it declares in ways not followed: a lambda's parameters, a structured
    binding's)."""
    caps = _locals_cursor(program.tree.language).captures(body)
    found: dict[bytes, list] = {}
    field = FIELD.declarator
    for d in caps.get("d", ()):
        scope = _scope_of(d)
        if scope is None:
            continue
        end = scope.end_byte
        for decl in d.children_by_field_id(field):
            ident = _declared_identifier(decl)
            if ident is not None:
                found.setdefault(ident.text, []).append((ident.start_byte, end))
    for r in caps.get("r", ()):
        ident = _declared_identifier(r.child_by_field_id(field))
        if ident is not None:
            found.setdefault(ident.text, []).append((ident.start_byte, r.end_byte))
    other: set[bytes] = set()
    for p in caps.get("p", ()):
        ident = _declared_identifier(p.child_by_field_id(field))
        if ident is not None:
            other.add(ident.text)
    for s in caps.get("s", ()):
        other.update(c.text for c in s.named_children if c.type == "identifier")
    return found, other


def _unseen_uses(src: bytes, body, name: bytes, spans) -> list[int]:
    """Where `name` stands in the body outside every [declarator, end of its scope) of `spans`."""
    uses, at = [], body.start_byte
    for lo, hi in sorted(spans):
        if lo > at:
            uses += word_offsets(src, name, at, lo)
        at = max(at, hi)
    if at < body.end_byte:
        uses += word_offsets(src, name, at, body.end_byte)
    return uses


def out_of_scope_names(program, contexts=()) -> list[str]:
    """Uses of a local outside the scope that declares it (`for (int j...) {...} y[i] = x[j];`, a
    variable of an `if`'s block used after it) or before its declaration, in a kernel or device
    function: NVRTC's `identifier "j" is undefined`. A name the file has anywhere outside function
    bodies (a global, a macro, a member) is not judged, nor a call (`max(a, b)` past a local `max`),
    nor a function whose body did not parse.

    contexts: the lint's kernel contexts, whose walks met their kernels' declarations: a kernel none
    of whose walked locals is used out of their scope is not queried again (nearly every one)."""
    src = program.source
    walked: dict[int, dict] = {}     # a kernel body's start -> {name: spans} of the locals its walk declared
    for ctx in contexts:
        body = ctx.kernel.body
        if body is not None:
            spans = walked.setdefault(body.start_byte, {})
            lo, hi = body.start_byte, body.end_byte
            for name, start, end in ctx.accesses.declarations:
                if lo <= start < hi:
                    spans.setdefault(name.encode(), []).append((start, end))
    root = None
    out = []
    for f in program.functions:
        body = f.body
        if f.kind == "host" or body is None or body.has_error:
            continue
        seen = walked.get(body.start_byte)
        if seen is not None and not any(_unseen_uses(src, body, name, s) for name, s in seen.items()):
            continue
        found, other = function_locals(program, body)
        params = None
        for name, spans_of in found.items():
            uses = _unseen_uses(src, body, name, spans_of)
            if not uses or name in other or name in _BUILTIN_NAMES or name in _PREDEFINED:
                continue
            params = params if params is not None else {p.name.encode() for p in f.params}
            if name in params:
                continue
            root = root or program.tree.root_node
            use = next((u for u in uses if _plain_use(root.descendant_for_byte_range(u, u + len(name)), u, name, body)),
                       None)
            if use is None or _outside_bodies(src, name, program.functions):
                continue
            first = min(lo for lo, _ in spans_of)
            where = "before its declaration" if use < first else "outside the block that declares it"
            out.append(f'line {_line(program.original, program.original_offset(use))}: identifier '
                       f'"{name.decode()}" is undefined (in {f.name}: used {where}, line '
                       f'{_line(program.original, program.original_offset(first))})')
    return out


def _plain_use(node, at: int, name: bytes, body) -> bool:
    """Whether the node at a name's offset is that identifier, used as a value (no call's function)."""
    if node is None or node.type != "identifier" or node.start_byte != at or node.end_byte != at + len(name):
        return False
    parent = node.parent
    if parent is not None and parent.type == "call_expression" and parent.child_by_field_id(FIELD.function) == node:
        return False
    return _a_use(node, body)


def _outside_bodies(src: bytes, name: bytes, functions) -> bool:
    """Whether `name` stands in src's code outside every function body (a global, a macro, a member;
    not a comment's word)."""
    bodies = [(f.body.start_byte, f.body.end_byte) for f in functions if f.body is not None]
    return any(not any(a <= at < b for a, b in bodies) for at in word_offsets(_code(src), name))


# ---------------------------------------------------------------- a const pointer given to a non-const one

_CONST_SOURCE = {}      # name -> pattern of the name given on: `= x`, `(x`, `, x`, `= &x[...]`, `= x + 1`
_NOT_GIVEN = frozenset((b"+=", b"-=", b"*=", b"/=", b"%=", b"&=", b"|=", b"^=", b"<=", b">=", b"!=", b"==", b">("))


def const_pointer_conversions(contexts) -> list[str]:
    """A kernel's `const T*` parameter given to something that would write through it: a local
    `float* q = x;` (or `= x + 4`, `= &x[i]`), an assignment `q = x;` to such a local, or an
    argument of a device function of the file whose parameter is a `T*` without const. NVRTC refuses
    each ("a value of type "const float *" cannot be used to initialize an entity of type "float *"");
    an explicit cast takes the const away and is left alone, as are templates and overloads."""
    out = []
    for ctx in contexts:
        const = [p for p in ctx.kernel.params if p.pointer == 1 and p.const]
        body = ctx.kernel.body
        if not const or body is None or body.has_error:
            continue
        program = ctx.program
        text = program.source[body.start_byte:body.end_byte]
        for p in const:
            pat = _CONST_SOURCE.get(p.name)
            if pat is None:
                pat = _CONST_SOURCE[p.name] = re.compile(rb"[=(,]\s*(?:\(\s*)*(&?)\s*(" + re.escape(p.name.encode())
                                                         + rb")\b\s*(\[?)")
            for m in pat.finditer(text):
                # the name itself (not an element it reads, `x[i]`) or an element's address, after `=`
                # (not `+=`, `==`...), `(` (not a cast's `>(`) or `,`
                if bool(m.group(1)) != bool(m.group(3)) or text[m.start() - 1:m.start() + 1] in _NOT_GIVEN:
                    continue
                at = body.start_byte + m.start(2)
                problem = _const_given(program, ctx.kernel, at, p)
                if problem:
                    out.append(f"line {_line(program.original, program.original_offset(at))}: {problem} "
                               f"({ctx.kernel.name}'s parameter {p.name} is `const {p.type}*`): the build fails; "
                               "keep the const (or cast it away where the code really means to write)")
                    break
    return out


def _const_given(program, kernel, at: int, param) -> str:
    """What NVRTC says of the kernel's const pointer parameter at offset `at` where it initializes, is
    assigned to, or is passed as a non-const pointer; "" where it is not (a read, a cast, a const target)."""
    node = kernel.body.descendant_for_byte_range(at, at + len(param.name))
    if node is None or node.type != "identifier" or node.start_byte != at:
        return ""
    # climb what keeps it the same pointer: (x), x + k, k + x, x - k, &x[i]
    while True:
        parent = node.parent
        if parent is None:
            return ""
        t = parent.type
        if t == "parenthesized_expression":
            node = parent
        elif t == "binary_expression" and parent.child_by_field_id(FIELD.operator).type in ("+", "-") and (
                parent.child_by_field_id(FIELD.left) == node or parent.child_by_field_id(FIELD.operator).type == "+"):
            node = parent
        elif t == "subscript_expression" and parent.child_by_field_id(FIELD.argument) == node:
            outer = parent.parent
            if outer is None or outer.type != "pointer_expression" or outer.child_by_field_id(FIELD.operator).type != "&":
                return ""
            node = outer
        else:
            break
    wanted = f'"const {param.type} *"'
    if t == "init_declarator" and parent.child_by_field_id(FIELD.value) == node:
        declarator = parent.child_by_field_id(FIELD.declarator)
        declaration = parent.parent
        if declarator is None or declarator.type != "pointer_declarator" or not _plain_type(declaration):
            return ""
        return (f'a value of type {wanted} cannot be used to initialize an entity of type '
                f'"{program.text(declaration.child_by_field_id(FIELD.type))} *" (`{_line_text(program, declaration)}`)')
    if t == "assignment_expression" and parent.child_by_field_id(FIELD.right) == node and \
            parent.child_by_field_id(FIELD.operator).type == "=":
        left = parent.child_by_field_id(FIELD.left)
        target = _pointer_target(program, kernel, left) if left is not None and left.type == "identifier" else None
        if target is None:
            return ""
        return (f'a value of type {wanted} cannot be assigned to an entity of type "{target} *" '
                f'(`{_line_text(program, parent)}`)')
    if t == "argument_list":
        call = parent.parent
        fn = call.child_by_field_id(FIELD.function) if call is not None and call.type == "call_expression" else None
        if fn is None or fn.type != "identifier":
            return ""
        name = program.text(fn)
        callees = [f for f in program.functions if f.name == name]
        if len(callees) != 1 or callees[0].kind == "host" or callees[0].template_params:
            return ""
        index = [c for c in parent.named_children if c.type != "comment"].index(node)
        params = callees[0].params
        if index >= len(params) or params[index].pointer != 1 or params[index].const:
            return ""
        return (f'argument of type {wanted} is incompatible with parameter of type "{params[index].type} *" '
                f'(`{_line_text(program, call)}`, {name}\'s parameter {params[index].name})')
    return ""


def _plain_type(declaration) -> bool:
    """A declaration of a named type with no const anywhere in its type or qualifiers (`float`,
    `float4`, `unsigned int`): not `auto`, not a template's or a qualified type."""
    if declaration is None or declaration.type != "declaration":
        return False
    tnode = declaration.child_by_field_id(FIELD.type)
    if tnode is None or tnode.type not in ("primitive_type", "type_identifier", "sized_type_specifier"):
        return False
    return not any(c.type == "type_qualifier" and c.text == b"const" for c in declaration.children)


def _pointer_target(program, kernel, ident) -> str | None:
    """The pointee type of a local `T* q;` or a parameter `T* q` (no const) of the kernel that `ident`
    names, from its one declaration; None otherwise."""
    name = ident.text
    body = kernel.body
    param = kernel.param(name.decode())
    if param is not None:
        return param.type if param.pointer == 1 and not param.const and not word_offsets(
            program.source, name, body.start_byte, ident.start_byte) else None
    found = None
    for at in word_offsets(program.source, name, body.start_byte, ident.start_byte):
        node = body.descendant_for_byte_range(at, at + len(name))
        parent = node.parent if node is not None else None
        if parent is None or parent.type != "pointer_declarator" or parent.child_by_field_id(FIELD.declarator) != node:
            continue
        declaration = parent.parent
        if declaration is not None and declaration.type == "init_declarator":
            declaration = declaration.parent
        if found is not None or not _plain_type(declaration):
            return None
        found = program.text(declaration.child_by_field_id(FIELD.type))
    return found


def _line_text(program, node) -> str:
    return " ".join(program.text(node).split())[:60]
