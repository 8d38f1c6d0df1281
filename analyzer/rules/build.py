"""Device code the build rejects that the other categories do not cover."""
from __future__ import annotations

import re

from ..parse import _WORD_BYTES, FIELD, SCALAR_SIZES, word_offsets
from .._records import once_per_program
from . import FileContext, Finding, function_name_at, node_edit, node_position, rule

# what may stand before a host function's declarator for its head to be read whole: without an
# unknown word (`CUDA_CALLABLE float f(...)`: a header's macro that may well say __host__ __device__)
_HEAD_NODES = frozenset(("primitive_type", "sized_type_specifier", "storage_class_specifier", "type_qualifier",
                         "__forceinline__", "function_declarator", "pointer_declarator", "reference_declarator",
                         "type_identifier", "qualified_identifier", "template_type", "compound_statement",
                         "linkage_specification", "comment"))
_CALLS = ("call_expression",)


def _host_head(program, f) -> str | None:
    """"plain" where `f` is a host function by its own head: no CUDA qualifier, no word the file
    does not know (a macro from a header), a free function (not a class member), not `main`;
    "constexpr" where such a function is constexpr (a build with --expt-relaxed-constexpr, as
    torch's, calls those from device code; NVRTC's build of the device code alone has none); None
    otherwise."""
    if f.kind != "host" or f.name == "main" or "::" in f.name:
        return None
    parent = f.node.parent
    if parent is not None and parent.type == "template_declaration":
        parent = parent.parent
    if parent is None or parent.type not in ("translation_unit", "declaration_list"):
        return None
    return _plain_head(program, f, _HEAD_NODES)


def _plain_head(program, f, allowed: frozenset, stop: frozenset = frozenset(), known_too=()) -> str | None:
    """"plain" where `f`'s head (its children up to one of `stop`) holds only nodes of the types
    `allowed` and type names the file knows (builtins, its structs and aliases, `f`'s template
    parameters, `known_too`): no word a header's macro may be; "constexpr" where it is constexpr;
    None otherwise."""
    known = None
    head = "plain"
    for c in f.node.children:
        if c.type in stop:
            break
        if c.type not in allowed:
            return None
        if c.type == "type_qualifier" and program.text(c) == "constexpr":
            head = "constexpr"
        if c.type == "type_identifier":
            known = known or (set(SCALAR_SIZES) | set(program.structs) | set(program.aliases) |
                              set(f.template_params) | set(known_too))
            if program.text(c) not in known:
                return None
    return head


def _device_declared(program, name: bytes) -> bool:
    """Whether the file declares `name` `__device__` somewhere (`__device__ float f(...);`, a member
    declared in its class and defined outside)."""
    return re.search(rb"__device__[^;{}()]*\b" + re.escape(name) + rb"\s*\(", program.source) is not None


def device_caller(f) -> bool:
    """A kernel, or a device function by its own `__device__` without `__host__` (a __host__
    __device__ function calling host code is a warning, and an error only where it is used)."""
    if f.kind == "global":
        return True
    types = {c.type for c in f.node.children}
    return f.kind == "device" and "__device__" in types and "__host__" not in types


@once_per_program
def host_calls_in_device_code(program) -> list[tuple[object, object, object, bool]]:
    """(caller, callee, call's name node, whether the callee is constexpr) of each call from device
    code (a kernel, a `__device__` function) of a host function the file defines, by its plain name:
    the build fails ("calling a __host__ function from a __global__ function is not allowed"; for a
    constexpr one, unless the build passes --expt-relaxed-constexpr). A name with a device-callable
    definition or declaration anywhere in the file is left out (overloads, `__device__` prototypes)."""
    functions = program.functions
    hosts: dict[bytes, object] = {}
    for f in functions:
        if f.kind == "host" and f.name != "main":
            hosts.setdefault(f.name.encode(), f)
    if not hosts:
        return []
    src = program.source
    out = []
    checked: dict[bytes, str | None] = {}   # name -> its head (_host_head), where nothing device-side shares it
    for caller in functions:
        body = caller.body
        if body is None or caller.kind == "host" or not device_caller(caller):
            continue
        start, end = body.start_byte, body.end_byte
        for name, callee in hosts.items():
            at = src.find(name, start, end)     # the cheap test first: most bodies name no host function
            while at >= 0:
                after = at + len(name)
                if (not at or src[at - 1] not in _WORD_BYTES) and after < end and src[after] not in _WORD_BYTES:
                    if name not in checked:
                        checked[name] = _only_host(program, name, callee)
                    head = checked[name]
                    if head is None:
                        break
                    node = _call_name(program, body, at, after)
                    if node is not None:
                        out.append((caller, callee, node, head == "constexpr"))
                at = src.find(name, after, end)
    return out


def _only_host(program, name: bytes, callee) -> str | None:
    """The head (_host_head) of `name`, a host function of the file, where no device-callable
    definition or `__device__` declaration shares the name; None otherwise."""
    text = name.decode()
    head = _host_head(program, callee)
    if head is None or any(f.name == text and f.kind != "host" for f in program.functions):
        return None
    return None if _device_declared(program, name) else head


# device-side methods of CUDA's own types (cooperative groups, atomics, pipelines): a call of one of
# these names is not taken for the file's host member of the same name unless its object's type says so
_LIBRARY_METHODS = frozenset(("sync", "thread_rank", "size", "num_threads", "group_index", "thread_index",
                              "meta_group_rank", "meta_group_size", "shfl", "shfl_down", "shfl_up", "shfl_xor", "any",
                              "all", "ballot", "match_any", "match_all", "is_valid", "data", "begin", "end", "load",
                              "store", "fetch_add", "fetch_sub", "fetch_min", "fetch_max", "exchange", "arrive",
                              "wait", "arrive_and_wait", "get", "operator()", "block_rank", "num_blocks", "dim_blocks",
                              "producer_acquire", "producer_commit", "consumer_wait", "consumer_release"))
_HEAD_WORDS = frozenset(("primitive_type", "sized_type_specifier", "storage_class_specifier", "type_qualifier",
                         "type_identifier", "qualified_identifier", "template_type", "virtual", "explicit",
                         "function_declarator", "pointer_declarator", "reference_declarator", "field_identifier",
                         "operator_name", "destructor_name", "comment", "inline"))


def _owner(program, f) -> str | None:
    """The struct or class a member function belongs to: the scope its definition names
    (`float Vec3::dot(...) const {`), or the one whose body holds the definition; None for a free
    function."""
    parent = f.node.parent
    if parent is not None and parent.type == "template_declaration":
        parent = parent.parent
    if parent is None or parent.type != "field_declaration_list":
        d = f.node.child_by_field_id(FIELD.declarator)
        while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
            d = d.child_by_field_id(FIELD.declarator) if d.type == "pointer_declarator" else d.named_child(0)
        name = d.child_by_field_id(FIELD.declarator) if d is not None and d.type == "function_declarator" else None
        scope = name.child_by_field_id(FIELD.scope) if name is not None and name.type == "qualified_identifier" else None
        return program.text(scope).split("<")[0] if scope is not None else None
    spec = parent.parent
    name = spec.child_by_field_id(FIELD.name) if spec is not None else None
    return program.text(name) if name is not None and spec.type in ("struct_specifier", "class_specifier") else None


def _member_head(program, f, owner: str) -> str | None:
    """"plain" or "constexpr" where a member function is host code by its own head (no CUDA
    qualifier, no word the file does not define); None otherwise."""
    if f.kind != "host":
        return None
    return _plain_head(program, f, _HEAD_WORDS, _MEMBER_HEAD_END, (owner,))


_MEMBER_HEAD_END = frozenset(("function_declarator", "field_initializer_list", "compound_statement"))


@once_per_program
def host_members_in_device_code(program) -> list[tuple[object, object, object, bool]]:
    """(caller, member, node, whether it is constexpr) of each use, in device code (kernels, `__device__`
    functions), of a member function or constructor of a struct the file defines without `__device__`:
    `v.dot(w)`, `p->norm()`, `Vec3 a(1, 2, 3)`, `Vec3(x, y, z)` (nvcc: "calling a __host__ function
    ("Vec3::dot") from a __global__ function is not allowed"). A name some struct of the file also
    declares device-callable is left out, and so are methods named as CUDA's own types' are
    (`g.sync()`) unless the object is a parameter of the struct's type."""
    src = program.source
    if b"struct" not in src and b"class" not in src:
        return []           # members need a class the file defines
    methods: dict[str, list] = {}       # name -> [(owner, member function, head)]
    ctors: dict[str, list] = {}         # struct -> [(member function, head)]
    device_names = set()
    for f in program.functions:
        owner = _owner(program, f)
        base = f.name.rsplit("::", 1)[-1]
        if owner is None:
            if f.kind != "host":
                device_names.add(base)
            continue
        if f.kind != "host":
            device_names.add(base)
            (ctors if base == owner else methods).setdefault(base, [])
            continue
        head = _member_head(program, f, owner)
        if base == owner:
            ctors.setdefault(owner, []).append((f, head))
        elif not base.startswith(("operator", "~")):
            methods.setdefault(base, []).append((owner, f, head))
    methods = {n: v for n, v in methods.items() if v and n not in device_names and all(h for _, _, h in v)
               and not _device_declared(program, n.encode())}
    ctors = {n: v for n, v in ctors.items() if v and n not in device_names and all(h for _, h in v)
             and not _device_declared(program, n.encode())}
    if not methods and not ctors:
        return []
    out = []
    for caller in program.functions:
        body = caller.body
        if body is None or caller.kind == "host" or not device_caller(caller):
            continue
        start, end = body.start_byte, body.end_byte
        for name, defs in methods.items():
            word = name.encode()
            for at in word_offsets(src, word, start, end):
                node = _method_call(program, body, at, at + len(word))
                if node is None:
                    continue
                owner, f, head = defs[0]
                if len(defs) > 1 or name in _LIBRARY_METHODS:
                    if _object_type(program, caller, node) not in {o for o, _, _ in defs}:
                        continue
                    owner, f, head = next(d for d in defs if d[0] == _object_type(program, caller, node))
                out.append((caller, f, node, head == "constexpr"))
        for owner, defs in ctors.items():
            word = owner.encode()
            for at in word_offsets(src, word, start, end):
                node = _constructed(program, body, at, at + len(word))
                if node is not None:
                    f, head = defs[0]
                    out.append((caller, f, node, all(h == "constexpr" for _, h in defs)))
    return out


def _method_call(program, body, at: int, after: int):
    """The field_identifier at [at, after) where it names the method of a call (`v.dot(`, `p->dot(`)."""
    node = body.descendant_for_byte_range(at, after)
    if node is None or node.type != "field_identifier":
        return None
    fe = node.parent
    call = fe.parent if fe is not None and fe.type == "field_expression" else None
    if call is None or call.type != "call_expression" or call.child_by_field_id(FIELD.function) != fe:
        return None
    return node if program.surely_compiled(node) else None


def _object_type(program, caller, node) -> str | None:
    """The type of a method call's object where it is the caller's parameter (`v[i].dot(...)`, `p->f()`)."""
    obj = node.parent.child_by_field_id(FIELD.argument)
    while obj is not None and obj.type in ("subscript_expression", "parenthesized_expression", "pointer_expression"):
        obj = obj.child_by_field_id(FIELD.argument) if obj.type != "parenthesized_expression" else obj.named_child(0)
    if obj is None or obj.type != "identifier":
        return None
    p = caller.param(program.text(obj))
    return p.type if p is not None else None


def _constructed(program, body, at: int, after: int):
    """The node of a constructor's use at the struct's name [at, after): `S a(1, 2)`, `S a{1, 2}`,
    `S(1, 2)`; None for other uses (a pointer's or a copy's declaration, a cast, a template argument)."""
    node = body.descendant_for_byte_range(at, after)
    if node is None or node.type not in ("type_identifier", "identifier"):
        return None
    parent = node.parent
    if parent is None:
        return None
    if parent.type == "call_expression" and parent.child_by_field_id(FIELD.function) == node:
        return node if program.surely_compiled(node) else None
    if parent.type != "declaration" or parent.child_by_field_id(FIELD.type) != node:
        return None
    for d in parent.children_by_field_id(FIELD.declarator):
        value = d.child_by_field_id(FIELD.value) if d.type == "init_declarator" else None
        if value is not None and value.type in ("argument_list", "initializer_list") and \
                d.child_by_field_id(FIELD.declarator).type == "identifier":
            return node if program.surely_compiled(node) else None
    return None


def _call_name(program, body, at: int, after: int):
    """The identifier node at [at, after) where it names the function of a call (`f(...)`,
    `f<float>(...)`), not a member's (`x.f(`) or another scope's (`ns::f(`); None otherwise."""
    if at and program.source[at - 1:at] in (b".", b">", b":"):
        return None
    node = body.descendant_for_byte_range(at, after)
    if node is None or node.type != "identifier":
        return None
    call = node.parent
    if call is not None and call.type == "template_function":
        call = call.parent
    if call is None or call.type not in _CALLS or call.child_by_field_id(FIELD.function) not in (node, node.parent):
        return None
    return node if program.surely_compiled(node) else None


def _qualify(program, callee) -> tuple:
    """The edit that makes the callee `__host__ __device__`: the qualifiers before its return type."""
    rtype = callee.node.child_by_field_id(FIELD.type)
    return node_edit(program, rtype, "__host__ __device__ " + program.text(rtype)) if rtype is not None else ()


@rule("CP701", "host-function-in-device-code", "error",
      "Device code calling a host function of the file (one without `__device__`), which does not compile.",
      """
      What it does
          Finds calls, in a kernel or a `__device__` function, of a function the file defines
          without `__device__` (a helper written as plain C++: `float relu(float x)`), and uses
          of a struct's member functions and constructors defined so (`v.dot(w)`,
          `Vec3 a(1, 2, 3)`). Left out:
          names with a device-callable definition or `__device__` declaration anywhere in the
          file, `constexpr` functions (a build with `--expt-relaxed-constexpr`, as PyTorch's
          extensions, takes them), functions whose head holds a word the file does not define (a
          header's `HOST_DEVICE` macro), members, and `__host__ __device__` callers (a warning
          there, an error only where they are used). `--fix` adds `__host__ __device__` to the helper.

      Why is this bad?
          A function without an execution-space qualifier is host code only: nvcc and NVRTC fail
          with "calling a __host__ function from a __global__ function is not allowed" (and
          "identifier is undefined in device code"). Generated kernels often carry such helpers.

      Example
          float relu(float x) { return x > 0.0f ? x : 0.0f; }
          __global__ void k(float* y, const float* x) { y[threadIdx.x] = relu(x[threadIdx.x]); }

      Use instead
          __host__ __device__ float relu(float x) { return x > 0.0f ? x : 0.0f; }
      """, scope="file", fixable=True)
def host_function_in_device_code(ctx: FileContext, r):
    program = ctx.program
    for caller, callee, node, constexpr in host_calls_in_device_code(program):
        if constexpr:
            continue        # --expt-relaxed-constexpr builds take it
        line, col = node_position(program, node)
        space = "__global__" if caller.kind == "global" else "__device__"
        yield Finding(r.code, r.name, r.severity,
                      f"{caller.name} calls `{callee.name}`, a host function (line {callee.line}, no `__device__`): "
                      f"the build fails (calling a __host__ function from a {space} function is not allowed); "
                      f"declare it `__host__ __device__`", program.path, line, col, caller.name,
                      {"callee": callee.name, "callee_line": callee.line}, _qualify(program, callee))
    for caller, member, node, constexpr in host_members_in_device_code(program):
        if constexpr:
            continue
        line, col = node_position(program, node)
        yield Finding(r.code, r.name, r.severity, f"{caller.name} " + member_problem(program, member), program.path, line, col,
                      caller.name, {"callee": member.name, "callee_line": member.line}, _qualify_member(program, member))


def member_problem(program, member) -> str:
    """What the build says of device code using `member`, a host member function or constructor."""
    owner = _owner(program, member)
    base = member.name.rsplit("::", 1)[-1]
    what = f"constructs a `{owner}` with a host constructor" if base == owner else f"calls `{owner}::{base}`, a host member function"
    return (f"{what} (line {member.line}, no `__device__`): the build fails (calling a __host__ function from device "
            f"code is not allowed); declare it `__host__ __device__`")


def _qualify_member(program, member) -> tuple:
    """The edit that makes a member `__host__ __device__`: the qualifiers before its head."""
    parent = member.node.parent
    if parent is None or parent.type != "field_declaration_list" or not member.node.child_count:
        return ()       # defined outside its class: the declaration inside says it too
    first = member.node.children[0]
    return node_edit(program, first, "__host__ __device__ " + program.text(first))


@rule("CP702", "launch-of-non-kernel", "error",
      "A `<<<...>>>` launch of a `__device__` function, which does not compile.",
      """
      What it does
          Finds chevron launches (`f<<<grid, block>>>(...)`) of a name the file defines only as a
          `__device__` function, or only as a host function whose head shows no qualifier at all
          (`void f(float* x)`). A head with a word the file does not define (`KERNEL void f`) is
          read as a kernel whose `__global__` a header's macro holds.

      Why is this bad?
          Only a `__global__` function can be launched: nvcc fails with "a __device__ function
          call cannot be configured" ("a host function call cannot be configured").

      Example
          __device__ void fill(float* x) { x[threadIdx.x] = 1.0f; }
          fill<<<1, 256>>>(x);

      Use instead
          __global__ void fill(float* x) { x[threadIdx.x] = 1.0f; }
          fill<<<1, 256>>>(x);
      """, scope="file")
def launch_of_non_kernel(ctx: FileContext, r):
    program = ctx.program
    for launch, f in launched_non_kernels(program):
        yield Finding(r.code, r.name, r.severity, f"`{f.name}` is launched with <<<...>>> but " + non_kernel_problem(f),
                      program.path, launch.line, launch.col, f.name, {"defined_line": f.line})


def non_kernel_problem(f) -> str:
    """What the build says of a launch of `f`, a function launched_non_kernels found."""
    space = "__device__" if f.kind == "device" else "__host__"
    what = "a __device__ function" if f.kind == "device" else "a host function (no qualifier)"
    return (f"is {what} (line {f.line}): the build fails (\"a {space} function call cannot be configured\"); "
            "declare it `__global__ void`")


@once_per_program
def launched_non_kernels(program) -> list[tuple[object, object]]:
    """(launch, the function it names) of each chevron launch of a name the file defines only as a
    `__device__` function, or only as a host function by its own head (no qualifier, no word the
    file does not know: `void k(float* x)`)."""
    if not program.launches:
        return []
    by_name: dict[str, list] = {}
    for f in program.functions:
        by_name.setdefault(f.name, []).append(f)
    out = []
    lines = None
    for launch in program.launches:
        defs = by_name.get(launch.kernel)
        # a launched function without qualifiers is taken for a kernel whose `__global__` a header's
        # macro holds (parse: _launched_are_kernels), unless its head shows there is none
        if not defs or not (all(f.kind == "device" for f in defs) or all(_plain_host(program, f) for f in defs)):
            continue
        lines = lines if lines is not None else program.source.split(b"\n")
        text = lines[launch.line - 1][launch.col - 1:] if 0 < launch.line <= len(lines) else b""
        if not re.match(rb"[\w:]+\s*(?:<[^;()]*?>\s*)?<<<", text):
            continue            # `cudaLaunchKernel((void*)f, ...)` and other forms: their own errors
        out.append((launch, defs[0]))
    return out


_LAUNCHED_HEAD = frozenset(("primitive_type", "sized_type_specifier", "storage_class_specifier", "type_qualifier",
                           "type_identifier"))
_DECLARATORS = frozenset(("function_declarator", "pointer_declarator", "reference_declarator"))


def _plain_host(program, f) -> bool:
    """Whether a launched function the parser took for a kernel (Function.launched_only) is host code
    by its own head: nothing but known types and specifiers before its name, nothing a macro left."""
    # nothing but types and specifiers before the declarator (not a macro's word, ERROR, an attribute,
    # `__forceinline__`...)
    if not f.launched_only or _plain_head(program, f, _LAUNCHED_HEAD, _DECLARATORS) is None:
        return False
    node = f.node
    start = node.start_byte
    if node.parent is not None and node.parent.type == "template_declaration":
        start = node.parent.start_byte
    line_start = program.source.rfind(b"\n", 0, start) + 1
    original = program.original or program.source
    # a qualifier macro the pre-pass blanked (`#define GLOBAL __global__` ... `GLOBAL void k`)
    return not original[line_start:start].strip() and not program.source[line_start:start].strip()


@rule("CP703", "kernel-returns-value", "error",
      "A `__global__` function with a return type other than `void`, which does not compile.",
      """
      What it does
          Reports kernels declared with a return type other than `void` (a type the file knows:
          a builtin, a struct, an alias; not a macro from a header).

      Why is this bad?
          A launch has no caller to return to: nvcc fails with "a __global__ function must have a
          void return type". Results go through memory.

      Example
          __global__ float dot(const float* a, const float* b) { ... return s; }

      Use instead
          __global__ void dot(const float* a, const float* b, float* out) { ... atomicAdd(out, s); }
      """, scope="file")
def kernel_returns_value(ctx: FileContext, r):
    program = ctx.program
    for f, rtype in kernels_returning_values(program):
        yield Finding(r.code, r.name, r.severity,
                      f"kernel {f.name} returns `{program.text(rtype)}`: the build fails (\"a __global__ function "
                      "must have a void return type\"); return void and write the result to memory",
                      program.path, *node_position(program, rtype), f.name)


@once_per_program
def kernels_returning_values(program) -> list[tuple[object, object]]:
    """(kernel, its return type's node) of each kernel whose return type is a known type but void."""
    out = []
    known = None
    for f in program.functions:
        if f.kind != "global":
            continue
        rtype = f.node.child_by_field_id(FIELD.type)
        if rtype is None or rtype.type not in ("primitive_type", "sized_type_specifier", "type_identifier"):
            continue
        name = program.text(rtype)
        if name == "void":
            continue
        if rtype.type == "type_identifier":
            known = known or (set(SCALAR_SIZES) | set(program.structs))
            if program.resolve_type(name) not in known:
                continue        # a macro or a header's type: maybe void
        if program.resolve_type(name) == "void" or not program.surely_compiled(rtype):
            continue
        out.append((f, rtype))
    return out


@rule("CP704", "shared-initializer", "error",
      "A `__shared__` variable declared with an initializer (`__shared__ int count = 0;`), which does not compile.",
      """
      What it does
          Reports `__shared__` declarations with an initializer: `= value`, `= {...}` or `{...}`.

      Why is this bad?
          Shared memory belongs to the block and has no start value: nvcc fails with
          "initializer not allowed for __shared__ variable". Had it compiled, every thread would
          write it while others already use it.

      Example
          __shared__ int count = 0;

      Use instead
          __shared__ int count;
          if (threadIdx.x == 0) count = 0;
          __syncthreads();
      """, scope="file")
def shared_initializer(ctx: FileContext, r):
    program = ctx.program
    for node, name in initialized_shared(program):
        yield Finding(r.code, r.name, r.severity,
                      f"`__shared__` variable `{name}` has an initializer: the build fails (\"initializer not "
                      "allowed for __shared__ variable\"); declare it without one, have one thread set it, then "
                      "`__syncthreads()`", program.path, *node_position(program, node),
                      function_name_at(program, node.start_byte))


@once_per_program
def initialized_shared(program) -> list[tuple[object, str]]:
    """(the declarator's node, the variable's name) of each `__shared__` declaration with an initializer."""
    src = program.source
    if b"__shared__" not in src:
        return []
    out = []
    root = program.tree.root_node
    at = src.find(b"__shared__")
    while at >= 0:
        start, at = at, src.find(b"__shared__", at + 10)
        end = src.find(b";", start)
        if end < 0 or (src.find(b"=", start, end) < 0 and src.find(b"{", start, end) < 0):
            continue            # the usual declaration, `__shared__ float s[32];`: no tree to look at
        decl = root.descendant_for_byte_range(start, start + 10)
        for _ in range(3):      # the keyword, its type_qualifier, the declaration
            if decl is None or decl.type == "declaration":
                break
            decl = decl.parent
        if decl is None or decl.type != "declaration":
            continue
        for d in decl.children_by_field_id(FIELD.declarator):
            if d.type != "init_declarator":
                continue
            inner = d.child_by_field_id(FIELD.declarator)
            while inner is not None and inner.type in ("array_declarator", "pointer_declarator"):
                inner = inner.child_by_field_id(FIELD.declarator)
            if inner is not None and program.surely_compiled(d):
                out.append((d, program.text(inner)))
    return out


# what no compile-time constant is: a thread's or launch's coordinates, the warp size (a variable)
_RUNTIME = frozenset(("threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize"))
_WORDS = re.compile(r"[A-Za-z_]\w*")


@rule("CP705", "variable-length-array", "error",
      "An array in device code sized by a run-time value (`float buf[n]`, `__shared__ float s[blockDim.x]`).",
      """
      What it does
          Reports local and `__shared__` arrays of kernels and the device functions they call
          whose size reads a function parameter (a run-time value even where `const`), the
          thread geometry (`blockDim.x`) or `warpSize`. Sizes from macros, `constexpr` and
          template parameters are constants.

      Why is this bad?
          Device code has no variable-length arrays: nvcc fails with "expression must have a
          constant value" (local) or "a variable length array cannot have static storage
          duration" (`__shared__`).

      Example
          __global__ void k(const float* x, int n) {
            __shared__ float tile[blockDim.x];
            float vals[n];

      Use instead
          template <int BLOCK, int N> __global__ void k(const float* x) {
            __shared__ float tile[BLOCK];       // or extern __shared__ float tile[]; sized at launch
            float vals[N];
      """, scope="file")
def variable_length_array(ctx: FileContext, r):
    program = ctx.program
    for node, reason in runtime_sized_arrays(program, ctx.kernels):
        yield Finding(r.code, r.name, r.severity,
                      f"array size `{program.text(node)}` reads {reason}, a run-time value: the build fails (device "
                      "code has no variable-length arrays); size it with a constant or a template parameter, or "
                      "use dynamic shared memory (`extern __shared__`) sized at launch", program.path,
                      *node_position(program, node), function_name_at(program, node.start_byte))


@once_per_program
def runtime_sized_arrays(program, kernels) -> list[tuple[object, str]]:
    """(size node, what it reads) of each array in device code sized by a run-time value: the
    `__shared__` arrays the parser recorded and the local ones the kernels' walks met."""
    sizes = []
    for f in program.functions:
        if f.kind != "host":
            for a in f.shared:
                sizes += [(f, n) for d, n in zip(a.dims, a.size_nodes) if d is None and n is not None]
    seen = set()
    for ctx in kernels:
        for n in ctx.accesses.unsized_locals:
            if n.start_byte not in seen:
                seen.add(n.start_byte)
                sizes.append((None, n))
    out = []
    for f, node in sizes:
        if f is None:
            f = program.function_at(node.start_byte)
            if f is None:
                continue
        text = program.text(node)
        if "sizeof" in text:
            continue            # `sizeof(n)` is a constant whatever n holds
        words = set(_WORDS.findall(text))
        runtime = sorted(words & _RUNTIME)
        # a parameter of a builtin number type (one of a class type may carry a constant: a static
        # extent's `.value()`)
        params = sorted(w for w in words if w not in f.template_params and w not in program.constants and (
            (p := f.param(w)) is not None and not p.pointer and not p.dims and p.type in SCALAR_SIZES))
        if not (runtime or params) or not program.surely_compiled(node):
            continue
        out.append((node, f"`{runtime[0]}`" if runtime else f"the parameter `{params[0]}`"))
    return out
