"""Registers, spills and memory per kernel: from ptxas where a CUDA compiler is
present, else a static estimate marked as such.

Off the lint fast path by default (a pre-commit hook must start and finish
fast, and ptxas costs 0.1-1.5 s per file); `lint --ptxas` turns it on.
Backends, tried in order for `auto`: NVRTC through cuda-python (no GPU
needed, device code only) and `nvcc -cubin -Xptxas -v` (any .cu file).
Results are cached on disk by a hash of source, arch and backend.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from dataclasses import asdict, dataclass
from pathlib import Path

from . import _fresh
from .cache import cache_root
from ._records import fast_init
from .parse import _IDENTIFIER, WMMA_FRAGMENT, Function, Program, eval_constant
from .register_weights import WEIGHTS as REGISTER_WEIGHTS


@fast_init
@dataclass(frozen=True)
class Resources:
    registers: int
    spill_stores: int = 0         # bytes
    spill_loads: int = 0          # bytes
    stack_frame: int = 0          # bytes of local memory per thread
    shared_static: int = 0        # bytes per block
    constant: int = 0
    source: str = "estimate"      # "ptxas (nvrtc)", "ptxas (nvcc)", "estimate"

    @property
    def measured(self) -> bool:
        return self.source != "estimate"


class CompilerUnavailable(RuntimeError):
    pass


def cache_dir() -> Path:
    path = cache_root() / "resources"
    path.mkdir(parents=True, exist_ok=True)
    return path


# ------------------------------------------------------------------ ptxas log parsing

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '(sm_\d+a?)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers(?:, used \d+ barriers)?(?:, (\d+) bytes smem)?(?:, (\d+) bytes cmem\[0\])?")


def demangle_name(symbol: str) -> str:
    """The unqualified function name of an Itanium-mangled symbol (enough to match a kernel)."""
    if not symbol.startswith("_Z"):
        return symbol
    s = symbol[2:]
    if s.startswith("N"):
        # nested: take the last source name before E
        s = s[1:]
        name = symbol
        while s and s[0].isdigit():
            m = re.match(r"(\d+)", s)
            n = int(m.group(1))
            name = s[len(m.group(1)):len(m.group(1)) + n]
            s = s[len(m.group(1)) + n:]
            if s.startswith("I"):
                break
        return name
    m = re.match(r"(\d+)", s)
    if not m:
        return symbol
    n = int(m.group(1))
    return s[len(m.group(1)):len(m.group(1)) + n]


_INT_CODES = "bcahstijlmxy"    # Itanium codes of the integer types a template argument can have


def template_int_args(symbol: str) -> tuple[int, ...] | None:
    """The template arguments of a mangled function template instance when all of them are
    integers (`_Z4tileILi128ELi4EEvPf` -> (128, 4)); else None."""
    m = re.match(r"_Z(\d+)", symbol)
    if not m:
        return None
    rest = symbol[m.end() + int(m.group(1)):]
    if not rest.startswith("I"):
        return None
    out = []
    for arg in re.finditer(r"L([a-z])(n?)(\d+)E|(E)|(.)", rest[1:]):
        if arg.group(4):
            return tuple(out) if out else None
        if arg.group(5) or arg.group(1) not in _INT_CODES:
            return None     # a type argument or a nested form: not matched by value
        out.append(-int(arg.group(3)) if arg.group(2) else int(arg.group(3)))
    return None


def instance_key(name: str, args) -> str:
    """How an instance of a template kernel is keyed in the tables below: `tile<128, 4>`."""
    return f"{name}<{', '.join(str(a) for a in args)}>"


def parse_ptxas_log(log: str, source: str) -> dict[str, Resources]:
    """Kernel (demangled) -> resources, from `-Xptxas -v` output; an instance of a template kernel
    with integer arguments also under `name<args>` (instance_key): the plain name holds the last
    instance the log lists."""
    out: dict[str, Resources] = {}
    current = None
    instance = None
    frame = (0, 0, 0)
    for line in log.splitlines():
        m = _ENTRY.search(line) or _PROPS.search(line)
        if m:
            if m.re is _ENTRY:
                frame = (0, 0, 0)
            current = demangle_name(m.group(1))
            args = template_int_args(m.group(1))
            instance = instance_key(current, args) if args else None
            continue
        m = _FRAME.search(line)
        if m and current:
            frame = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
            continue
        m = _USED.search(line)
        if m and current:
            out[current] = Resources(int(m.group(1)), frame[1], frame[2], frame[0], int(m.group(2) or 0),
                                     int(m.group(3) or 0), source)
            if instance:
                out[instance] = out[current]
    return out


# ------------------------------------------------------------------ backends

def _nvcc() -> str | None:
    return shutil.which("nvcc")


def compile_nvcc(source: str, arch: str, timeout: float = 60.0, include_dirs: tuple[str, ...] = ()) -> dict[str, Resources]:
    nvcc = _nvcc()
    if nvcc is None:
        raise CompilerUnavailable("nvcc not found on PATH")
    with tempfile.TemporaryDirectory(prefix="cudaperf-") as tmp:
        src = Path(tmp) / "kernel.cu"
        src.write_text(source)
        proc = subprocess.run([nvcc, "-cubin", f"-arch={arch}", "-Xptxas", "-v", *(f"-I{d}" for d in include_dirs),
                               "-o", str(Path(tmp) / "k.cubin"), str(src)],
                              capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        first = next((l for l in proc.stderr.splitlines() if "error" in l), proc.stderr.strip()[:200])
        raise CompilerUnavailable(f"nvcc failed: {first}")
    return parse_ptxas_log(proc.stderr, "ptxas (nvcc)")


NVRTC_TIMEOUT_S = 120.0


def compile_nvrtc(source: str, arch: str, name_expressions: tuple[str, ...] = (),
                  include_dirs: tuple[str, ...] = (), timeout: float = NVRTC_TIMEOUT_S) -> dict[str, Resources]:
    """ptxas's figures per kernel through NVRTC, run in a child process (_NvrtcChild): NVRTC
    itself crashes on some code under edit (CUDA 13's segfaults on a template kernel with a
    parameter of an undeclared template type, `Accessor<T> out`, instantiated by a name
    expression), which in this process would end the whole lint. A crash, or a compile past
    `timeout`, is a CompilerUnavailable like any failed compile. Where os.fork is missing, NVRTC
    runs in this process."""
    try:
        from cuda.bindings import nvrtc  # noqa: F401   (loaded before the child forks: it has it too)
    except ImportError as exc:
        raise CompilerUnavailable("cuda-python (cuda.bindings) is not installed") from exc
    if not hasattr(os, "fork"):
        return parse_ptxas_log(_nvrtc_log(source, arch, name_expressions, include_dirs), "ptxas (nvrtc)")
    request = {"source": source, "arch": arch, "names": list(name_expressions), "dirs": list(include_dirs)}
    return parse_ptxas_log(_NvrtcChild.ask(request, timeout), "ptxas (nvrtc)")


class _NvrtcChild:
    """A forked process that compiles with NVRTC for this one, request after request (a fork per
    compile cost ~40 ms, as much as the compile). Kept in a pool: a thread that compiles takes an
    idle child or forks another, and gives it back after (threads compiling at once each have
    their own, as NVRTC in this process allowed). One that crashed or ran past its time is
    stopped, not given back. A process forked from this one (a `lint -j` worker) starts its own."""

    _idle: list = []
    _owner = 0                  # the process the idle children belong to
    _lock = threading.Lock()

    def __init__(self) -> None:
        down_r, down_w = os.pipe()
        up_r, up_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                # only its own two pipe ends: a copy of another child's request pipe, or of the
                # parent's stdout, would keep that child (or a reader of the output) waiting
                # after this process's parent is gone
                keep = sorted((down_r, up_w))
                os.closerange(3, keep[0])
                os.closerange(keep[0] + 1, keep[1])
                os.closerange(keep[1] + 1, _max_fd())
                import faulthandler
                faulthandler.disable()      # a crash here is reported by the parent, in one line
                # with a GPU driver, NVRTC keeps compiled code in ~/.nv/ComputeCache, and a source
                # compiled before (by any process) gives an empty ptxas log: no registers. Read at
                # NVRTC's first compile, which the parent leaves to its children (seen on an H100).
                os.environ["CUDA_CACHE_DISABLE"] = "1"
                _serve(down_r, up_w)
            except BaseException:   # noqa: BLE001   (the parent sees the pipe close)
                code = 1
            finally:
                os._exit(code)      # no Python clean-up of the parent's state in the child
        os.close(down_r)
        os.close(up_w)
        self.pid, self.to_child, self.from_child = pid, down_w, up_r

    @classmethod
    def ask(cls, request: dict, timeout: float) -> str:
        with cls._lock:
            if cls._owner != os.getpid():   # forked from the process these belong to: not ours
                cls._idle, cls._owner = [], os.getpid()
            child = cls._idle.pop() if cls._idle else None
        if child is None:
            child = cls()
        data = json.dumps(request).encode()
        try:
            _write_all(child.to_child, len(data).to_bytes(8, "little") + data)
            reply = _read_reply(child.from_child, timeout)
        except CompilerUnavailable:
            child.stop(kill=True)       # past the timeout
            raise
        except OSError:
            reply = None
        if reply is None:               # it died mid-compile
            raise CompilerUnavailable(f"NVRTC crashed on this code: {_signal_name(child.stop(kill=False))}")
        with cls._lock:
            if cls._owner == os.getpid():
                cls._idle.append(child)
        if not reply["ok"]:
            failed = CompilerUnavailable(reply["text"])
            if reply.get("log") is not None:
                failed.log = reply["log"]
            raise failed
        return reply["text"]

    def stop(self, kill: bool) -> int:
        """Close the pipes, reap the child (killed first where `kill`): its wait status."""
        import signal

        status = 0
        for fd in (self.to_child, self.from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        if kill:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        return status

    @classmethod
    def stop_all(cls) -> None:
        """Stop this process's idle children (tests; the children end by themselves when this
        process does: their request pipe closes)."""
        with cls._lock:
            idle, cls._idle = (cls._idle, []) if cls._owner == os.getpid() else ([], cls._idle)
        for child in idle:
            child.stop(kill=True)


def _max_fd() -> int:
    try:
        return max(256, min(os.sysconf("SC_OPEN_MAX"), 1 << 20))
    except (ValueError, OSError):
        return 1 << 16


def _serve(requests: int, replies: int) -> None:
    """The NVRTC child's loop: a request in, (ok, text) out, until the parent closes its pipe."""
    while True:
        head = _read_exactly(requests, 8)
        if head is None:
            return
        request = json.loads(_read_exactly(requests, int.from_bytes(head, "little")) or b"{}")
        try:
            reply = {"ok": True, "text": _nvrtc_log(request["source"], request["arch"], tuple(request["names"]),
                                                    tuple(request["dirs"]))}
        except CompilerUnavailable as exc:
            reply = {"ok": False, "text": str(exc), "log": getattr(exc, "log", None)}
        except Exception as exc:     # noqa: BLE001   (anything: it must reach the parent)
            reply = {"ok": False, "text": f"NVRTC: {exc!r}"}
        data = json.dumps(reply).encode()
        _write_all(replies, len(data).to_bytes(8, "little") + data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exactly(fd: int, n: int, deadline: float | None = None) -> bytes | None:
    """n bytes from the pipe; None at its end (the other side closed or died). Past `deadline`
    (time.monotonic()), CompilerUnavailable."""
    import select
    import time

    chunks, got = [], 0
    while got < n:
        if deadline is not None and not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
            raise CompilerUnavailable("NVRTC took over its time limit")
        chunk = os.read(fd, n - got)
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _read_reply(fd: int, timeout: float) -> dict | None:
    import time

    deadline = time.monotonic() + timeout
    head = _read_exactly(fd, 8, deadline)
    body = _read_exactly(fd, int.from_bytes(head, "little"), deadline) if head is not None else None
    return json.loads(body) if body is not None else None


def _signal_name(status: int) -> str:
    import signal

    if not os.WIFSIGNALED(status):
        return f"its process ended with status {os.WEXITSTATUS(status)}"
    try:
        return signal.Signals(os.WTERMSIG(status)).name
    except ValueError:
        return f"signal {os.WTERMSIG(status)}"


def _nvrtc_log(source: str, arch: str, name_expressions: tuple[str, ...], include_dirs: tuple[str, ...]) -> str:
    """NVRTC's compile of the source: ptxas's log (-Xptxas=-v); CompilerUnavailable if it fails."""
    from cuda.bindings import nvrtc

    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), b"kernel.cu", 0, [], [])
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise CompilerUnavailable(f"NVRTC: {err}")
    try:
        for expr in name_expressions:
            nvrtc.nvrtcAddNameExpression(prog, expr.encode())
        opts = [f"--gpu-architecture={arch}".encode(), b"-Xptxas=-v", b"--std=c++17", b"-default-device"]
        include = _cuda_include()
        if include:
            opts.append(f"-I{include}".encode())
        opts.extend(f"-I{d}".encode() for d in include_dirs)
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        text = log.decode(errors="replace")
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            first = next((l for l in text.splitlines() if "error" in l), text.strip()[:200])
            failed = CompilerUnavailable(f"NVRTC failed: {first}")
            failed.log = text       # every error, for a caller that looks for one at given lines (a failed compile's)
            raise failed
        return text
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _cuda_include() -> str | None:
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")):
        if root and os.path.isdir(os.path.join(root, "include")):
            return os.path.join(root, "include")
    nvcc = _nvcc()
    if nvcc:
        real = os.path.realpath(nvcc)
        # the PATH entry may be a wrapper script: read the exec line
        try:
            text = Path(real).read_text(errors="ignore")[:400] if os.path.getsize(real) < 4096 else ""
        except OSError:
            text = ""
        m = re.search(r"(/\S+)/bin/nvcc", text)
        root = m.group(1) if m else os.path.dirname(os.path.dirname(real))
        if os.path.isdir(os.path.join(root, "include")):
            return os.path.join(root, "include")
    return None


def written_code(program: Program) -> str:
    """The file as written: the parser's pre-pass blanks code that tree-sitter cannot read
    (qualifier macros, `__align__`, `#pragma unroll`) but a compiler must see."""
    return program.original.decode("utf-8", "replace")


def device_code(program: Program, local: list | None = None) -> str:
    """The file as written with host-only functions removed, for NVRTC (which has no host headers).
    local: the local headers it includes (`_local_headers`), where the caller has them already."""
    src = program.original
    cut = []
    for f in program.functions:
        if f.kind == "host":
            node = f.node
            parent = node.parent
            if parent is not None and parent.type == "template_declaration":
                node = parent
            cut.append((program.original_offset(node.start_byte), program.original_offset(node.end_byte)))
    out = bytearray(src)
    for start, end in cut:
        for i in range(start, min(end, len(out))):
            if out[i] != 10:
                out[i] = 32
    text = out.decode("utf-8", "replace")
    # host headers NVRTC cannot see; the file's own local headers (beside it on disk) stay
    local = {os.path.relpath(h, _local_dir(program)).replace(os.sep, "/")
             for h in (_local_headers(program) if local is None else local)}
    return re.sub(r"^[ \t]*#[ \t]*include[ \t]*([<\"])(?!cuda_fp16|cuda_bf16|cooperative_groups|mma|cuda/)([^>\"]*)[>\"]",
                  lambda m: m.group(0) if m.group(1) == '"' and m.group(2) in local else "", text, flags=re.M)


def _local_dir(program: Program) -> str:
    return os.path.dirname(os.path.abspath(program.path))


def _local_headers(program: Program) -> list:
    """The local headers the file includes (analyzer/includes.py), where it is a file on disk."""
    from .includes import headers

    return headers(program.original, program.path) if b"include" in program.original else []


def ptxas_resources(program: Program, arch: str, backend: str = "auto",
                    name_expressions: tuple[str, ...] = ()) -> dict[str, Resources]:
    """ptxas figures per kernel name; raises CompilerUnavailable if no backend works.

    name_expressions (`reduce<256, float>`) instantiate template kernels under NVRTC; nvcc
    instantiates those that the file's own host code launches.
    """
    text = written_code(program)
    local = _local_headers(program)
    dirs = (_local_dir(program),) if local else ()
    headers_text = "".join(h.read_text(errors="replace") for h in local)      # a header's edit is a new key
    key = hashlib.sha256(f"{arch}|{backend}|{sorted(name_expressions)}|{text}|{headers_text}".encode()).hexdigest()[:24]
    cached = cache_dir() / f"{key}.json"
    if cached.exists():
        try:
            return {k: Resources(**v) for k, v in json.loads(cached.read_text()).items()}
        except (ValueError, TypeError):
            pass
    errors = []
    result = None
    order = ["nvrtc", "nvcc"] if backend == "auto" else [backend]
    for b in order:
        try:
            result = (compile_nvrtc(device_code(program, local), arch, tuple(name_expressions), include_dirs=dirs)
                      if b == "nvrtc"
                      else compile_nvcc(text, arch, include_dirs=dirs))
            break
        except CompilerUnavailable as exc:
            errors.append(str(exc))
        except subprocess.TimeoutExpired:
            errors.append(f"{b}: timed out")
    if result is None:
        raise CompilerUnavailable("; ".join(errors))
    tmp = cached.with_suffix(f".{os.getpid()}.tmp")     # per process: `lint -j` workers may write one key at once
    tmp.write_text(json.dumps({k: asdict(v) for k, v in result.items()}))
    os.replace(tmp, cached)
    return result


# ------------------------------------------------------------------ static estimate

# Each pattern must start at a word boundary (`\bint\b...`); the boundary is checked in
# Python because a leading `\b` keeps `re` from skipping ahead to the first letters, which
# made these scans a few percent of the lint time.
_DECL = re.compile(r"(?:int|unsigned|float|size_t|long|double|half|float2|float4|int4|auto|bool)\b\s+[A-Za-z_]")
_VECTOR = re.compile(r"(?:float4|int4|double2)\b")
_DOUBLE = re.compile(r"double\b")
_LOCAL_ARRAY = re.compile(r"(?:float|int|double|half)\s+(\w+)\s*\[\s*(\w+)\s*\](?:\s*\[\s*(\w+)\s*\])?")
# a `for` header: its counter (1), first value (2) and condition (3)
_FOR_HEADER = re.compile(r"\bfor\s*\(\s*(?:[\w:]+\s+)*?(\w+)\s*=\s*([^;]*);([^;]*);")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
# a wmma fragment declaration: its type (use, m, n, k, element type), then the name and its array sizes
_FRAGMENT = re.compile(r"\b" + WMMA_FRAGMENT.pattern + r"[^;>]*>\s*\w+\s*((?:\[\s*\w+\s*\]\s*)*)")
_FRAGMENT_BYTES = {"half": 2, "__half": 2, "__nv_bfloat16": 2, "nv_bfloat16": 2, "tf32": 4,
                   "float": 4, "int": 4, "double": 8, "signed": 1, "unsigned": 1, "char": 1}


def _word_matches(pattern: re.Pattern, text: str):
    """The matches `re.finditer(r"\b" + pattern)` gives (patterns start with a word character)."""
    pos = 0
    while True:
        m = pattern.search(text, pos)
        if m is None:
            return
        start = m.start()
        if start and (text[start - 1].isalnum() or text[start - 1] == "_"):
            pos = start + 1   # not at a word start: look again from the next character
            continue
        yield m
        pos = m.end()


_scan = _fresh.accelerator("analyzer._scan")


def register_words(text: str) -> tuple[int, int, int, list[re.Match]]:
    """The matches the estimate counts: of _DECL, _VECTOR and _DOUBLE (how many) and of
    _LOCAL_ARRAY (the matches), each at word starts only, as `_word_matches` finds them. One C
    pass (analyzer/_scan.pyx) where it is built; these regular expressions are its reference."""
    if _scan is None:
        return (sum(1 for _ in _word_matches(_DECL, text)), sum(1 for _ in _word_matches(_VECTOR, text)),
                sum(1 for _ in _word_matches(_DOUBLE, text)), list(_word_matches(_LOCAL_ARRAY, text)))
    decl, vector, double, candidates = _scan.register_words(text)
    arrays, end = [], 0
    for at in candidates:   # every word start where _LOCAL_ARRAY can match, in order
        if at >= end:
            m = _LOCAL_ARRAY.match(text, at)
            if m is not None:
                arrays.append(m)
                end = m.end()
    return decl, vector, double, arrays


REGISTER_FEATURES = ("pointers", "scalars", "declarations", "vector_words", "double_words", "array_elements", "for_words",
                     "fragment_words")


def fragment_words(text: str, known: dict) -> int:
    """32-bit words a lane holds of the wmma fragments a kernel declares: a use's tile (m x k,
    k x n or m x n elements) spread over the warp's 32 lanes, times the declaration's array sizes
    (a fragment's words live in registers). Sizes that are no known constant count 1."""
    words = 0
    for m in _FRAGMENT.finditer(text):
        dims = [known.get(g, int(g) if g.isdigit() else None) for g in m.group(2, 3, 4)]
        if not all(isinstance(d, int) and d > 0 for d in dims):
            continue
        rows, cols, depth = dims
        tile = {"matrix_a": rows * depth, "matrix_b": depth * cols}.get(m.group(1), rows * cols)
        count = 1
        for size in re.findall(r"\[\s*(\w+)\s*\]", m.group(6)):
            n = known.get(size, int(size) if size.isdigit() else 1)
            count *= max(1, min(int(n), 64)) if isinstance(n, (int, float)) else 1
        words += count * -(-tile * _FRAGMENT_BYTES.get(m.group(5).rsplit("::", 1)[-1], 4) // 128)
    return words


def register_features(program: Program, kernel: Function, constants: dict | None = None) -> dict[str, int]:
    """What the static register estimate counts in a kernel: its pointer and scalar parameters,
    declarations, vector and double words, elements of local arrays of constant size (unrolled
    into registers, 128 at most each), `for` words (loops keep counters and bounds live) and the
    words of wmma fragments.
    `constants`: the names with values in the instance (the walker's: the file's constants and
    the template's arguments, which size `float buf[ITEMS]`); the file's constants by default."""
    known = program.constants if constants is None else constants
    text = program.text(kernel.body)
    decl, vector, double, arrays = register_words(text)
    elements = 0
    counters = None
    for m in arrays:
        if "__shared__" in text[max(0, m.start() - 40):m.start()]:
            continue
        dims = [known.get(g, int(g) if g and g.isdigit() else None) for g in m.groups()[1:] if g]
        if all(isinstance(d, (int, float)) for d in dims):
            if counters is None:    # comments blanked (same length): a word in one is no use of an array
                code = _COMMENT.sub(lambda c: " " * len(c.group(0)), text) if "/" in text else text
                counters = unrolled_counters(code, known)
            if not in_registers(code, m.group(1), m.end(), known, counters):
                continue    # local memory: indexed by a runtime value, or passed on as a pointer
            count = 1
            for d in dims:
                count *= int(d)
            elements += min(count, 128)
    return {"pointers": sum(1 for p in kernel.params if p.pointer),
            "scalars": sum(1 for p in kernel.params if not p.pointer),
            "declarations": decl, "vector_words": vector, "double_words": double,
            "array_elements": elements, "for_words": text.count("for"),
            "fragment_words": fragment_words(text, known) if "fragment" in text else 0}


def unrolled_counters(text: str, known: dict) -> set[str]:
    """The counters of the text's `for` loops whose first value and bound are constants (`for (int
    i = 0; i < TM; ++i)`): loops ptxas can unroll, so an index of theirs is a constant in each copy."""
    out = set()
    for m in _FOR_HEADER.finditer(text):
        name, cond = m.group(1), m.group(3).strip()
        bound = re.fullmatch(re.escape(name) + r"\s*(?:<=?|>=?|!=)\s*(.+)", cond, re.S)
        if bound is not None and eval_constant(m.group(2), known) is not None \
                and eval_constant(bound.group(1), known) is not None:
            out.add(name)
    return out


def in_registers(text: str, name: str, after: int, known: dict, counters: set[str]) -> bool:
    """Whether ptxas can keep a local array in registers: each use after its declaration (at
    `after`) indexes it with constants and unrolled loops' counters only. An index of a runtime
    value (`best[i]`, i < nsample), or the array passed on as a pointer (`reheap(best, k)`), puts
    it in local memory (the stack: mmcv's knn, 2 x 100 elements, 40 registers by ptxas)."""
    n = len(text)
    for m in re.compile(r"(?<![.\w])(?<!->)" + re.escape(name) + r"\b").finditer(text, after):   # not a member `q.w`
        at, indexed = m.end(), False
        while True:     # each `[...]` after the name: `acc[i][j]`
            while at < n and text[at] in " \t\r\n":
                at += 1
            if at >= n or text[at] != "[":
                break
            depth, start = 0, at
            while at < n:
                depth += 1 if text[at] == "[" else -1 if text[at] == "]" else 0
                at += 1
                if depth == 0:
                    break
            if any(w not in known and w not in counters for w in _IDENTIFIER.findall(text[start + 1:at - 1])):
                return False
            indexed = True
        if not indexed:
            return False    # the array as a pointer
    return True


def register_cap(kernel: Function) -> int:
    """The most registers ptxas gives the kernel: what its `__launch_bounds__` leaves (the same on
    every architecture modelled: 64K registers an SM) and its `__maxnreg__`, else 255."""
    lb = kernel.launch_bounds
    if lb is None or not lb.max_threads:
        cap = 255
    else:
        from . import models    # here, not at the top: only kernels with launch bounds need it

        cap = models.launch_bounds_registers(models.arch("sm_90"), lb.max_threads, lb.min_blocks)
    return min(cap, kernel.max_registers or 255)


def estimate_registers(program: Program, kernel: Function, constants: dict | None = None) -> Resources:
    """A static register count: a weighted sum of `register_features`, the weights fitted on
    ptxas's counts for every measured kernel (analyzer/register_weights.py, made by
    `python -m corpus fit-registers`, which reports its error on families left out of the fit),
    at most what the kernel's `__launch_bounds__` leaves (ptxas keeps to it).

    Marked as an estimate; `corpus validate` measures how far it is from ptxas.
    """
    return Resources(weighted_registers(register_features(program, kernel, constants), register_cap(kernel)),
                     source="estimate")


def weighted_registers(counts: dict[str, int], cap: int = 255, weights: dict[str, float] | None = None) -> int:
    """The estimate from `register_features` counts: their sum under `weights` (the fitted ones
    by default) and a base, rounded, 8 to `cap` (register_cap)."""
    w = REGISTER_WEIGHTS if weights is None else weights
    regs = w["base"]
    for name, value in counts.items():
        regs += w.get(name, 0.0) * value      # a count the weights were fitted without weighs nothing
    return max(8, min(cap, round(regs)))
