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
from ..parse import word_offsets

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
