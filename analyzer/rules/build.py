"""Device code the build rejects that the other categories do not cover."""
from __future__ import annotations

import re

from ..fix import Edit
from ..parse import FIELD, SCALAR_SIZES
from . import FileContext, Finding, rule

# what may stand before a host function's declarator for its head to be read whole: without an
# unknown word (`CUDA_CALLABLE float f(...)`: a header's macro that may well say __host__ __device__)
_HEAD_NODES = frozenset(("primitive_type", "sized_type_specifier", "storage_class_specifier", "type_qualifier",
                         "__forceinline__", "function_declarator", "pointer_declarator", "reference_declarator",
                         "type_identifier", "qualified_identifier", "template_type", "compound_statement",
                         "linkage_specification", "comment"))
_CALLS = ("call_expression",)


def _plain_host_function(program, f) -> bool:
    """Whether `f` is a host function by its own head: no CUDA qualifier, no `constexpr` (a build
    with --expt-relaxed-constexpr, as torch's, calls those from device code), no word the file
    does not know (a macro from a header), a free function (not a class member), not `main`."""
    if f.kind != "host" or f.name == "main" or "::" in f.name:
        return False
    parent = f.node.parent
    if parent is not None and parent.type == "template_declaration":
        parent = parent.parent
    if parent is None or parent.type not in ("translation_unit", "declaration_list"):
        return False
    known = None
    for c in f.node.children:
        if c.type not in _HEAD_NODES:
            return False
        if c.type == "type_qualifier" and program.text(c) == "constexpr":
            return False
        if c.type == "type_identifier":
            known = known or (set(SCALAR_SIZES) | set(program.structs) | set(program.aliases) | set(f.template_params))
            if program.text(c) not in known:
                return False
    return True


def _device_caller(f) -> bool:
    """A kernel, or a device function by its own `__device__` without `__host__` (a __host__
    __device__ function calling host code is a warning, and an error only where it is used)."""
    if f.kind == "global":
        return True
    types = {c.type for c in f.node.children}
    return f.kind == "device" and "__device__" in types and "__host__" not in types


def host_calls_in_device_code(program) -> list[tuple[object, object, object]]:
    """(caller, callee, call's name node) of each call from device code (a kernel, a `__device__`
    function) of a host function the file defines, by its plain name: the build fails ("calling a
    __host__ function from a __global__ function is not allowed"). A name with a device-callable
    definition or declaration anywhere in the file is left out (overloads, `__device__` prototypes)."""
    hosts = {}
    for f in program.functions:
        if _plain_host_function(program, f):
            hosts.setdefault(f.name, f)
    if not hosts:
        return []
    callers = [f for f in program.functions if _device_caller(f)]
    if not callers:
        return []
    device_names = {f.name for f in program.functions if f.kind != "host"}
    src = program.source
    hosts = {n: f for n, f in hosts.items() if n not in device_names and not re.search(
        rb"__device__[^;{}()]*\b" + re.escape(n.encode()) + rb"\s*\(", src)}
    if not hosts:
        return []
    pattern = re.compile(rb"\b(" + b"|".join(re.escape(n.encode()) for n in hosts) + rb")\s*(?:<[^;{}()]*>\s*)?\(")
    out = []
    for f in callers:
        body = f.body
        if body is None:
            continue
        for m in pattern.finditer(src, body.start_byte, body.end_byte):
            if m.start() and src[m.start() - 1:m.start()] in (b".", b">", b":"):
                continue        # a member (`x.f(`, `p->f(`) or another scope's (`ns::f(`)
            node = body.descendant_for_byte_range(m.start(1), m.end(1))
            if node is None or node.type != "identifier":
                continue
            call = node.parent
            if call is not None and call.type == "template_function":
                call = call.parent
            if call is None or call.type not in _CALLS or call.child_by_field_id(FIELD.function) not in (
                    node, node.parent):
                continue
            if not program.surely_compiled(node):
                continue
            out.append((f, hosts[m.group(1).decode()], node))
    return out


def _qualify(program, callee) -> tuple[Edit, ...]:
    """The edit that makes the callee `__host__ __device__`: the qualifiers before its return type."""
    rtype = callee.node.child_by_field_id(FIELD.type)
    if rtype is None:
        return ()
    line, col = rtype.start_point[0] + 1, rtype.start_point[1] + 1
    if program.original_column(line, col) != col or program.expansion_at(rtype.start_byte) is not None:
        return ()           # moved by the pre-pass: no edit at a position the file does not have
    old = program.text(rtype)
    if "\n" in old:
        return ()
    return (Edit(line, col, old, "__host__ __device__ " + old),)


@rule("CP701", "host-function-in-device-code", "error",
      "Device code calling a host function of the file (one without `__device__`), which does not compile.",
      """
      What it does
          Finds calls, in a kernel or a `__device__` function, of a function the file defines
          without `__device__` (a helper written as plain C++: `float relu(float x)`). Left out:
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
    for caller, callee, node in host_calls_in_device_code(program):
        line = node.start_point[0] + 1
        col = program.original_column(line, node.start_point[1] + 1)
        space = "__global__" if caller.kind == "global" else "__device__"
        yield Finding(r.code, r.name, r.severity,
                      f"{caller.name} calls `{callee.name}`, a host function (line {callee.line}, no `__device__`): "
                      f"the build fails (calling a __host__ function from a {space} function is not allowed); "
                      f"declare it `__host__ __device__`", program.path, line, col, caller.name,
                      {"callee": callee.name, "callee_line": callee.line}, _qualify(program, callee))
