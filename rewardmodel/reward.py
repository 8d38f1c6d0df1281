"""The reward of one candidate kernel: gates, then a performance term and structural terms.

Gates come first and are all-or-nothing: the kernel parses and is found, it
compiles (NVRTC, when asked), it is correct (only a real measurement can say;
without one the gate is reported as not checked), and it does not game the
harness (anti-hacking, static checks on the source: the entry kernel must be
the one launched and must write global memory, no state kept between launches,
no call to the reference, no timers, streams or events). A failed gate gives
`config.fail_reward` and the breakdown says which gate and why.

Past the gates: performance = clipped log speedup over the task's baseline,
from a measurement when one is given, else from the surrogate; structural terms
in [0, 1] from the analyzer (coalescing efficiency, bank-conflict freedom,
occupancy, no spills), each with its weight and the findings behind it.
"""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Mapping

from analyzer.lint import split_name_expression
from analyzer.parse import _WORD_BYTES, bound_threads, namespaces_of
from analyzer.rules.build import (device_caller, host_calls_in_device_code, host_members_in_device_code,
                                  initialized_shared, kernels_returning_values, launched_non_kernels,
                                  member_problem, non_kernel_problem, runtime_sized_arrays)
from analyzer.rules.control import NOT_CODE, removed_warp_intrinsics
from analyzer.rules.half import half_problems, torch_half_build
from analyzer.rules.shared import extern_shared_conflicts
from analyzer.rules.occupancy import DEFAULT_SMEM_LIMIT
from analyzer.rules.names import (INCLUDE, const_pointer_conversions, const_pointer_writes, out_of_scope_names,
                                  strip_comments, undefined_name_problems)
from analyzer.rules.parsing import hiding_errors

from . import features as F
from .blind import blind_spots

# Identifiers a candidate has no business touching: timers, streams, events, host sync.
_TIMERS = re.compile(r"\b(clock|clock64|__globaltimer|globaltimer|cudaEvent\w*|cudaStream\w*|cudaDeviceSynchronize|"
                     r"cudaGraph\w*|cuEvent\w*|cuStream\w*|cudaLaunchKernel|cudaMemcpy\w*|nanosleep|__nanosleep)\b"
                     r"|%globaltimer|%clock")
# torch:: / at:: names a wrapper may use: types, allocation, options, streams. Anything else
# (torch::matmul, at::relu, torch::nn::functional ...) does the task for the candidate.
TORCH_WRAPPER_NAMES = frozenset({
    "Tensor", "TensorOptions", "ScalarType", "IntArrayRef", "ArrayRef", "Scalar", "Device", "DeviceType", "Half",
    "BFloat16", "Layout", "MemoryFormat", "TensorAccessor", "PackedTensorAccessor32", "PackedTensorAccessor64",
    "GenericPackedTensorAccessor", "RestrictPtrTraits", "DefaultPtrTraits", "TensorArg", "optional", "cuda",
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full", "full_like",
    "dtype", "device", "kCUDA", "kCPU", "kStrided", "elementSize", "toString", "ceil_div", "OptionalDeviceGuard",
    "DeviceGuard", "kFloat", "kFloat32", "kFloat16", "kHalf", "kBFloat16", "kDouble", "kFloat64", "kLong", "kInt64",
    "kInt", "kInt32", "kShort", "kInt16", "kChar", "kInt8", "kByte", "kUInt8", "kUInt16", "kUInt32", "kUInt64",
    "kBool", "Contiguous", "check_dim", "PackedTensorAccessor", "tensor", "scalar_tensor", "from_blob",
    "checkAllSameGPU", "TensorIterator", "native",
})
# Library calls that would do the task for the candidate (torch:: / at:: unless a name above).
_LIBRARIES = re.compile(r"\b(cublas\w*|cudnn\w*|cutlass::|thrust::|cub::Device\w*|(?:torch|at)::((?:\w+::)*\w+))")
# a variable's type and name up to its `[`, `=` or `;` (`unsigned long long hits;`, `float *p = 0;`): the name
_VARIABLE = r"(?:unsigned\s+|signed\s+|long\s+)*[A-Za-z_][\w:<>]*(?:\s+|\s*\*+\s*)([A-Za-z_]\w*)\s*(?:\[|=|;)"
# A file-scope __device__ variable (writable, lives across launches): `__device__ int done = 0;`
_DEVICE_VAR = re.compile(r"__device__\s+(?:volatile\s+)?" + _VARIABLE)
# A static variable that can change (`static int calls = 0;`, `static __device__ float cache[64];`): not a
# const one, a __shared__ one (per block), nor a static function (`static __device__ __forceinline__ float f(`)
_STATIC_VAR = re.compile(r"\bstatic\s+(?!const\b|constexpr\b|__shared__\b)(?:__device__\s+)?(?:volatile\s+)?"
                         r"(?!const\b|constexpr\b|__shared__\b|inline\b|__forceinline__\b|__inline__\b)" + _VARIABLE)
# Substrings without which _TIMERS and _LIBRARIES cannot match (each alternative contains one).
_TIMER_WORDS = ("clock", "globaltimer", "cudaEvent", "cudaStream", "cudaDeviceSynchronize", "cudaGraph", "cuEvent",
                "cuStream", "cudaLaunchKernel", "cudaMemcpy", "nanosleep")
_LIBRARY_WORDS = ("cublas", "cudnn", "cutlass::", "thrust::", "cub::Device", "torch::", "at::")
_PTX_TIMERS = re.compile(r"%globaltimer(?:_lo|_hi)?|%clock(?:64)?\b")
_COMMENT_ONLY = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


@dataclass(frozen=True)
class RewardConfig:
    w_speed: float = 1.0
    speed_clip: float = math.log(8.0)      # |log speedup| beyond 8x earns nothing more
    w_coalescing: float = 0.2
    w_banks: float = 0.1
    w_occupancy: float = 0.1
    w_spills: float = 0.1
    occupancy_enough: float = 0.5          # occupancy past this earns the full term
    # Below every passing reward (the lowest is -w_speed * speed_clip, structural terms being >= 0):
    # were a wrong kernel to score above a correct slow one, a policy would learn to fail on purpose.
    fail_reward: float = -3.0
    compile: bool = False                  # run NVRTC as a gate (and take registers from ptxas)
    reference_names: tuple[str, ...] = ()  # the reference's kernels/functions the candidate must not call

    def __post_init__(self) -> None:
        floor = -abs(self.w_speed) * self.speed_clip
        if self.fail_reward >= floor:
            raise ValueError(f"fail_reward {self.fail_reward} must be below the lowest passing reward {floor:.3f} "
                             "(-w_speed * speed_clip): a failed candidate would outscore a correct slow one")


_DEFAULT_CONFIG = RewardConfig()   # frozen: shared by the calls that pass none


@dataclass
class Gate:
    passed: bool | None                    # None: not checked
    detail: str = ""


@dataclass
class Term:
    value: float | None
    weight: float
    why: str = ""


@dataclass
class Breakdown:
    reward: float
    gates: dict[str, Gate]
    terms: dict[str, Term] = field(default_factory=dict)
    speed_source: str = "none"             # "measured", "surrogate" or "none"
    time_ms: float | None = None
    interval_ms: tuple[float, float] | None = None
    baseline_ms: float | None = None
    findings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # why the surrogate cannot time this kernel (rewardmodel.blind): its speed comes from a real run only
    blind: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def failed_gate(self) -> str | None:
        return next((k for k, g in self.gates.items() if g.passed is False), None)


@dataclass(frozen=True)
class Measurement:
    """What a real run said (from analyzer.profile or a replayed corpus row)."""

    status: str                            # "ok", "wrong_result", "compile_error", ...
    time_ms: float | None = None
    message: str = ""


# ------------------------------------------------------------------ static anti-hacking

def hacking_gates(program, kernel_name: str, accesses, reference_names=()) -> dict[str, Gate]:
    """Static checks against harness gaming. `accesses`: the entry kernel's KernelAccesses."""
    text = strip_comments(program.source.decode("utf-8", "replace"))
    gates: dict[str, Gate] = {}
    # 1. the entry kernel is the one that runs and does the work
    sites = [l.kernel for l in program.launches]
    writes = [a for a in accesses.accesses if a.space in ("global", "unknown") and a.kind in ("store", "atomic")]
    if not writes:
        writes = _textual_writes(program, kernel_name)
    if sites and kernel_name not in sites:
        gates["launches_own_kernel"] = Gate(False, f"the source launches {', '.join(sorted(set(sites)))} but never "
                                                   f"{kernel_name}")
    elif not writes:
        gates["launches_own_kernel"] = Gate(False, f"{kernel_name} never writes global memory: it cannot produce "
                                                   "the output")
    else:
        gates["launches_own_kernel"] = Gate(True, f"{len(writes)} global writes")
    # 2. work on every call: no state that survives the launch (a flag or a result cache in __device__ memory)
    persistent = [g.name for g in program.globals_ if g.space == "device"]
    persistent += _DEVICE_VAR.findall(text)      # the parser records arrays only; scalars too
    if "static" in text:   # each pattern below is tried only where its literal part occurs (a scan from
        # every position, which their leading \b forces, costs ~40 us on a 3 KB kernel): the same matches
        persistent += _STATIC_VAR.findall(text)
    used = [n for n in persistent if re.search(rf"\b{re.escape(n)}\b", _kernel_text(program, kernel_name))]
    gates["work_every_call"] = (Gate(False, f"keeps state between launches in {', '.join(sorted(set(used)))}: "
                                            "results may be cached across calls")
                                if used else Gate(True))
    # 3. no reference, no library doing the work
    refs = set(reference_names)
    if any(r in text for r in refs):
        called = set(re.findall(r"\b([A-Za-z_]\w*)\s*(?:<[^<>;]*>)?\s*(?:<<<|\()", text))
        bad = sorted(called & refs)
    else:
        bad = []
    lib = [m.group(1) for m in _LIBRARIES.finditer(text) if m.group(2) is None
           or m.group(2).split("::")[0] not in TORCH_WRAPPER_NAMES] if any(w in text for w in _LIBRARY_WORDS) else []
    if bad or lib:
        gates["no_reference_call"] = Gate(False, "calls " + ", ".join(bad + sorted(set(lib))))
    else:
        gates["no_reference_call"] = Gate(True)
    # 4. no timers, streams or events
    timers = {m.group(0) for m in _TIMERS.finditer(text)} if any(w in text for w in _TIMER_WORDS) else set()
    # PTX special registers live inside asm("...") strings, which `text` blanks (looked for only
    # where the source holds their literal part)
    source = program.source.decode("utf-8", "replace")
    if "%globaltimer" in source or "%clock" in source:
        timers |= set(_PTX_TIMERS.findall(_COMMENT_ONLY.sub(" ", source)))
    timers = sorted(timers)
    gates["no_timers_streams"] = Gate(False, "touches " + ", ".join(timers)) if timers else Gate(True)
    return gates


_INDEXED_WRITE = re.compile(r"([A-Za-z_][\w.>-]*)\s*(?:\[[^\]]*\])+\s*(?:[-+*/|&^]|<<|>>)?=(?!=)")
_LOCAL_ARRAY = re.compile(r"\b[A-Za-z_][\w:<>]*\s+([A-Za-z_]\w*)\s*\[[^\]]*\]\s*[;={]")


def _textual_writes(program, name: str) -> list[str]:
    """Writes the analyzer did not resolve (through struct fields, say), read from the text: indexed
    assignments to anything but a shared or local array, atomics, store intrinsics."""
    body = _kernel_text(program, name)
    kernel = next((f for f in program.functions if f.name == name), None)
    private = {a.name for a in (kernel.shared if kernel else ())} | {g.name for g in program.globals_ if g.space == "shared"}
    private |= {a.name for f in program.functions if f.kind == "device" for a in f.shared}   # a helper's own tile
    private |= set(_LOCAL_ARRAY.findall(body))
    found = [m.group(1) for m in _INDEXED_WRITE.finditer(body) if m.group(1).split(".")[0] not in private]
    found += re.findall(r"\b(atomic\w+|__st\w+)\s*\(", body)
    return found


def _kernel_text(program, name: str) -> str:
    """The entry kernel and the device functions it may call (all device functions: cheap and safe)."""
    parts = []
    for f in program.functions:
        if f.name == name or f.kind == "device":
            parts.append(program.source[f.node.start_byte:f.node.end_byte].decode("utf-8", "replace"))
    return strip_comments("\n".join(parts))


def _include_dirs() -> tuple[str, ...]:
    """The include folders the profiler gives NVRTC (analyzer.profile.build.compile_options): the
    toolkit's, and its cccl folder for libcu++ (cooperative_groups.h needs it)."""
    import os

    from analyzer.profile import toolkit

    inc = toolkit.cuda_include_dir()
    return tuple(d for d in (inc, os.path.join(inc, "cccl") if inc else None) if d and os.path.isdir(d))


def compile_gate(program, arch: str, as_written: bool = False) -> tuple[Gate, dict | None]:
    """NVRTC's build: of the source as written (`as_written`: what the profiler compiles for a kernel
    task, host code and headers included), or of its device code alone (a host build's kernels)."""
    from analyzer.resources import CompilerUnavailable, compile_nvrtc, device_code, written_code

    try:
        table = compile_nvrtc(written_code(program) if as_written else device_code(program), arch,
                              include_dirs=_include_dirs())
    except CompilerUnavailable as exc:
        msg = str(exc)
        if msg.startswith(("NVRTC failed", "NVRTC crashed")):    # a crash: the profiler's NVRTC would not build it either
            return Gate(False, msg), None
        return Gate(None, f"not checked: {msg}"), None
    return Gate(True, "NVRTC"), table


def parse_gate(program, arch: str, harness: str) -> tuple[Gate, Gate | None]:
    """(the parse gate, a failed compile gate where NVRTC refused the code). Code the analyzer cannot
    read in a kernel or device function (a missing `;` or `)`, or code tree-sitter misreads) is left
    out of the analysis: a candidate could hide its work there and be predicted fast. NVRTC decides
    which it is, paid only by such candidates (~12 ms a failure, ~50 ms a build); with no compiler
    the gate fails, as the real build most likely would (0 of 818 corpus sources and ~1% of public
    kernels have such regions).

    harness "nvrtc": the profiler's own build of the source as written decides; "nvcc" (a host
    build, whose host code NVRTC cannot compile): NVRTC's build of the device code alone, where it
    fails at one of those lines (unreadable_problem)."""
    errors = hiding_errors(program)
    if not errors:
        n = len(program.errors)
        return Gate(True, f"{n} unparsed region(s) skipped" if n else ""), None
    where = _regions(errors)
    if harness == "nvrtc":
        built, _ = compile_gate(program, arch, as_written=True)
        verdict, why = ("builds" if built.passed else "unknown" if built.passed is None else "fails"), built.detail
    else:
        verdict, why = unreadable_problem(program, arch, errors)
    if verdict == "unknown":
        return Gate(False, _cannot_tell(where, why)), None
    if verdict == "fails":
        return Gate(True, f"device code the analyzer cannot read: {where}"), Gate(False, why)
    return Gate(True, f"device code the analyzer cannot read, skipped: {where}; NVRTC builds it"), None


def _cannot_tell(where: str, why: str) -> str:
    return (f"the analyzer cannot read device code: {where}; a syntax error or code it misreads, "
            f"and no compiler here to tell which ({why})")


def _regions(errors) -> str:
    where = ", ".join(f"{e.message} (line {e.line})" if e.line == e.end_line else
                      f"{e.message} (lines {e.line}-{e.end_line})" for e in errors[:3])
    return where + (f" and {len(errors) - 3} more" if len(errors) > 3 else "")


_NVRTC_ERROR = re.compile(r"\((\d+)\): (?:catastrophic )?error: ([^\n]*)")


def unreadable_problem(program, arch: str, errors) -> tuple[str, str]:
    """What NVRTC's build of the device code alone says of code the analyzer cannot read (errors:
    hiding_errors(program)), for a build that has host code NVRTC cannot compile (a host build's, a
    PyTorch extension's): ("fails", "line N: ...") where it fails at one of those lines, ("unknown",
    why) where no compiler is here, else ("builds", ""): a build that fails elsewhere (torch's
    `int64_t` without its headers) is no verdict on that code."""
    from analyzer.resources import CompilerUnavailable, compile_nvrtc, device_code

    if not errors:
        return "builds", ""
    try:
        compile_nvrtc(device_code(program), arch, include_dirs=_include_dirs())
    except CompilerUnavailable as exc:
        log = getattr(exc, "log", None)
        if log is None:
            return "unknown", str(exc)
        for m in _NVRTC_ERROR.finditer(log):
            if any(e.line - 1 <= int(m.group(1)) <= e.end_line + 1 for e in errors):
                return "fails", f"line {m.group(1)}: {m.group(2)} (NVRTC, where the analyzer cannot read the code)"
    return "builds", ""


def unreadable_build_problem(program, arch: str = "sm_90") -> str:
    """For a build the reward does not run (a PyTorch extension's CUDA string): why the code the
    analyzer cannot read breaks it, as NVRTC says (unreadable_problem), or that no compiler can tell; ""."""
    errors = hiding_errors(program)
    verdict, why = unreadable_problem(program, arch, errors)
    if verdict == "unknown":
        return _cannot_tell(_regions(errors), why)
    return why if verdict == "fails" else ""


# ptxas's limit on a kernel's static __shared__ bytes, the same on sm_80..sm_90 (0xc000); dynamic
# shared memory goes beyond it, up to the SM's, with cudaFuncSetAttribute (the profiler sets it)
STATIC_SHARED_LIMIT = 48 * 1024

def build_problems(result) -> list[str]:
    """Why the build of a linted source (an analyzer FileResult) fails, read without a compiler, as
    NVRTC and nvcc say (tests/test_rewardmodel.py checks each against NVRTC): calls of warp
    intrinsics without a lane mask (SY302), `extern __shared__` arrays of one name and two types
    (SM203), device code calling the file's host functions (CP701), a launch of a __device__
    function (CP702), a kernel returning a value (CP703), an initialized __shared__ variable
    (CP704), an array sized by a run-time value (CP705), a 16-bit float mixed with a builtin number
    (CP706) or, where the build defines PyTorch's flags (Program.macros), a __half operator or
    conversion (CP707), a write through a kernel's `const T*` parameter, and a kernel's static shared
    memory over 48 KB."""
    if not result.contexts:
        return []
    out = []
    program = result.contexts[0].program
    removed = removed_intrinsics(program)
    if removed:
        out.append(f"calls {', '.join(removed)}: warp intrinsics without a lane mask, which sm_70 and later do not "
                   "have (the build fails; CUDA 9 replaced them by the _sync forms, `__shfl_down_sync(mask, v, d)`)")
    out += [message for _, _, _, message in extern_shared_conflicts(program)]
    for caller, callee, _, constexpr in host_calls_in_device_code(program):
        if constexpr:
            continue        # a host build with --expt-relaxed-constexpr (torch's) takes it
        out.append(f"{caller.name} calls {callee.name}, a host function (no __device__): the build fails (\"calling a "
                   f"__host__ function from a __global__ function is not allowed\"); declare it __host__ __device__")
    for caller, member, _, constexpr in host_members_in_device_code(program):
        if not constexpr:
            out.append(f"{caller.name} {member_problem(program, member)}")
    for launch, f in launched_non_kernels(program):
        out.append(f"line {launch.line} launches {f.name}, which {non_kernel_problem(f)}")
    for f, rtype in kernels_returning_values(program):
        out.append(f"kernel {f.name} returns {program.text(rtype)}: the build fails (\"a __global__ function must have "
                   "a void return type\"); return void and write results to memory")
    for node, name in initialized_shared(program):
        out.append(f"__shared__ variable {name} has an initializer (line {node.start_point[0] + 1}): the build fails "
                   "(\"initializer not allowed for __shared__ variable\"); one thread sets it, then __syncthreads()")
    for node, reads in runtime_sized_arrays(program, result.contexts):
        out.append(f"array size `{program.text(node)}` (line {node.start_point[0] + 1}) reads {reads}, a run-time "
                   "value: the build fails (device code has no variable-length arrays); size it with a constant")
    half = half_problems(program)
    if half:
        torch = torch_half_build(program)
        out += [f"line {node.start_point[0] + 1}: {message}" for node, builds, message, _ in half
                if builds == "all" or torch]
    out += const_pointer_writes(result.contexts) + const_pointer_conversions(result.contexts)
    out += out_of_scope_names(program, result.contexts)
    for ctx in result.contexts:
        if ctx.static_shared_bytes > STATIC_SHARED_LIMIT:
            out.append(f"{ctx.kernel.name} declares {ctx.static_shared_bytes:,} B of static shared memory, over the "
                       f"{STATIC_SHARED_LIMIT:,} B a block may: ptxas refuses it (\"uses too much shared data\"); "
                       "more takes dynamic shared memory (extern __shared__)")
    return out


# `std::min`, `std::numeric_limits<float>::max()`...: the profiler builds device code with NVRTC and no
# host headers, where namespace std has no members (NVRTC: namespace "std" has no member "min"). nvcc's
# builds differ (<cmath>'s device overloads; std::min with --expt-relaxed-constexpr): only the NVRTC
# harness asks. (Literal-led: the byte before a match is checked, not tried at every byte.)
_STD_NAME = re.compile(rb"std\s*::\s*([A-Za-z_]\w*)")


def nvrtc_std_names(program) -> list[str]:
    """The `std::` names device code (kernel and `__device__` bodies) uses, which NVRTC without
    host headers does not have; not in comments or strings, not `cuda::std::`, not where the file
    declares a `namespace std` of its own, only code the build surely compiles."""
    found: list[str] = []
    for name, _ in _std_uses(program):
        if name not in found:
            found.append(name)
    return found


def _std_uses(program) -> list[tuple[str, object]]:
    """(`std::name`, the function whose body uses it) for nvrtc_std_names."""
    src = program.source
    if b"std" not in src or re.search(rb"\bnamespace\s+std\b", src):
        return []
    found: list[tuple[str, object]] = []
    root = None
    for m in _STD_NAME.finditer(src):
        at = m.start()
        if at and (src[at - 1] in _WORD_BYTES or src[at - 1] == 58):     # `cuda::std::`, `mystd::`
            continue
        f = program.function_at(at)
        if f is None or f.kind == "host" or f.body is None or not f.body.start_byte <= at < f.body.end_byte:
            continue
        root = root or program.tree.root_node
        node = root.descendant_for_byte_range(at, at + 3)
        if node is None or node.type in NOT_CODE or not program.surely_compiled(node):
            continue
        found.append(("std::" + m.group(1).decode(), f))
    return found


# headers NVRTC cannot open (the profiler gives it the toolkit's include folder, no host or libc headers):
# the C and C++ standard libraries' and host libraries' (checked with NVRTC 13: <cstdio>, <cmath>,
# <stdint.h>, <type_traits>, <limits>, cuda.h, curand_kernel.h, cub, thrust all fail; cuda_runtime.h,
# cuda_fp16.h, cooperative_groups.h, mma.h, cuda/std/... build). A header not named here is not judged.
_STD_HEADERS = frozenset((
    "algorithm any array atomic bit bitset cassert cctype cerrno cfenv cfloat charconv chrono cinttypes climits "
    "clocale cmath compare complex concepts condition_variable cstdarg cstdbool cstddef cstdint cstdio cstdlib "
    "cstring ctime cwchar deque exception execution filesystem format forward_list fstream functional future "
    "initializer_list iomanip ios iosfwd iostream istream iterator limits list locale map memory mutex new numbers "
    "numeric optional ostream queue random ranges ratio regex set shared_mutex source_location span sstream stack "
    "stdexcept string string_view system_error thread tuple type_traits typeindex typeinfo unordered_map "
    "unordered_set utility valarray variant vector assert.h ctype.h errno.h float.h inttypes.h limits.h math.h "
    "stdarg.h stdbool.h stddef.h stdint.h stdio.h stdlib.h string.h time.h wchar.h unistd.h omp.h cuda.h "
    "curand.h curand_kernel.h helper_cuda.h helper_functions.h").split())
_HOST_LIBRARIES = ("cub/", "thrust/", "torch/", "ATen/", "c10/", "pybind11/", "cublas", "cufft", "cusparse", "cudnn",
                   "cusolver", "nvtx", "sys/")


def nvrtc_source_problems(program) -> list[str]:
    """Why the profiler's NVRTC build of a kernel task's source (the whole source, as submitted)
    fails, read without a compiler: host functions (NVRTC: "host functions are not allowed in JIT
    mode": a helper without `__device__`, `main`, a launcher, a struct's member function without
    `__device__`) and host or libc headers ("cannot open source file"). Code the build surely
    compiles only (`#ifndef __CUDACC_RTC__` is not judged)."""
    out = []
    hosts = [f.name for f in program.functions
             if f.kind == "host" and f.body is not None and program.surely_compiled(f.node)]
    if hosts:
        names = ", ".join(dict.fromkeys(hosts))
        out.append(f"defines host code ({names}: no __global__ or __device__): the profiler compiles the source "
                   "with NVRTC, which refuses it (\"host functions are not allowed in JIT mode\"); submit device "
                   "code only: kernels and __device__ functions")
    src = program.source
    if b"include" in src:
        root = program.tree.root_node
        bad = []
        for m in INCLUDE.finditer(src):
            name = m.group(1).decode("utf-8", "replace").strip()
            if name not in _STD_HEADERS and not name.startswith(_HOST_LIBRARIES):
                continue
            node = root.descendant_for_byte_range(m.start(1), m.start(1) + 1)
            if node is not None and program.surely_compiled(node) and name not in bad:
                bad.append(name)
        if bad:
            out.append(f"includes {', '.join('<' + b + '>' for b in bad)}: the profiler compiles the source with NVRTC, "
                       "which has no host or libc headers (\"cannot open source file\"); use CUDA's own device "
                       "functions (sqrtf, fminf, INFINITY...) without them")
    return out


def nvrtc_std_problem(program) -> str:
    """Why the profiler's NVRTC build of this device code fails on `std::` names; "" if it does not."""
    names = nvrtc_std_names(program)
    if not names:
        return ""
    return (f"device code uses {', '.join(names)}: the profiler builds it with NVRTC and no host headers, where "
            f"namespace std has none of them (NVRTC: namespace \"std\" has no member \"{names[0][5:]}\"); use "
            "CUDA's device functions (min, max, fminf, sqrtf, fabsf, INFINITY, FLT_MAX...)")


# std:: names whose device use nvcc refuses without --expt-relaxed-constexpr ("calling a constexpr
# __host__ function from a __global__ function is not allowed"; std::swap is a plain host function);
# <cmath>'s functions (std::sqrt, std::exp...) have device overloads and build. Checked with nvcc 13.
NVCC_HOST_STD = frozenset(("std::min", "std::max", "std::clamp", "std::minmax", "std::swap", "std::numeric_limits"))


def nvcc_constexpr_problems(program) -> list[str]:
    """Why a plain nvcc build (no --expt-relaxed-constexpr: a C task's wrapper) of this source fails on
    constexpr host functions in device code (kernels, `__device__` functions; a `__host__ __device__`
    one only warns): the file's own constexpr helpers, std::min and kin."""
    out = [f"{caller.name} calls {callee.name}, a constexpr host function: nvcc without --expt-relaxed-constexpr "
           f"refuses it in device code; declare it __host__ __device__"
           for caller, callee, _, constexpr in host_calls_in_device_code(program) if constexpr]
    names = []
    for name, f in _std_uses(program):
        # in a __host__ __device__ function nvcc only warns
        if name in NVCC_HOST_STD and name not in names and device_caller(f):
            names.append(name)
    if names:
        out.append(f"device code uses {', '.join(names)}: host functions (constexpr) that nvcc without "
                   "--expt-relaxed-constexpr refuses in device code (\"calling a constexpr __host__ function from a "
                   "__global__ function is not allowed\"); use CUDA's min, max, fminf, fmaxf, FLT_MAX, INFINITY...")
    return out


def overload_problem(program, kernel, templated: bool = False) -> str:
    """Why a harness cannot look `kernel` (a parse.Function) up by its name: it is overloaded (`k(float*)` and
    `k(double*)`; NVRTC's name expression, as analyzer.profile registers it, "cannot determine which
    instance of overloaded function" is meant, and an `extern "C"` pair does not compile).
    templated: the name expression has template arguments (`k<4>`), which only templates match.
    Only kernels the compile surely takes count (not `#if` / `#else` alternatives the build may
    decide either way; a branch the compile does not take is no kernel). "" if none."""
    name = kernel.name
    twins = [f for f in program.kernels if f.name == name]
    if len(twins) < 2:      # the common case: no tree walks
        return ""
    scope = namespaces_of(kernel.node)
    twins = [f for f in twins if program.surely_compiled(f.node) and (f.template_params or not templated)
             and namespaces_of(f.node) == scope]
    if len(twins) < 2:
        return ""
    lines = ", ".join(str(f.line) for f in twins)
    return (f"kernel {name} is overloaded ({len(twins)} definitions, lines {lines}): a launch by name cannot "
            "tell which one is meant (NVRTC: \"cannot determine which instance of overloaded function\"); "
            "give each its own name")


def removed_intrinsics(program) -> list[str]:
    """The legacy warp intrinsics a source calls, where the build cannot take them (SY302's
    calls, analyzer.rules.control.removed_warp_intrinsics), each name once, sorted."""
    return sorted({name for name, _ in removed_warp_intrinsics(program)})


# ------------------------------------------------------------------ structural terms

def structural_terms(feat: F.Features, config: RewardConfig) -> dict[str, Term]:
    v = feat.values
    terms: dict[str, Term] = {}
    g_eff = [(v["gld_efficiency"], 10 ** v["log_gld_requests"] - 1), (v["gst_efficiency"], 10 ** v["log_gst_requests"] - 1)]
    g_eff = [(e, w) for e, w in g_eff if not math.isnan(e) and w > 0]
    if g_eff:
        eff = sum(e * w for e, w in g_eff) / sum(w for _, w in g_eff)
        terms["coalescing"] = Term(float(min(1.0, eff)), config.w_coalescing,
                                   f"ideal/actual sectors per request {eff:.2f}")
    else:
        terms["coalescing"] = Term(None, config.w_coalescing, "no global access the analyzer could resolve")
    ways = v["shared_ways"]
    terms["bank_conflicts"] = (Term(float(1.0 / ways), config.w_banks, f"{ways:.2f}-way on average")
                               if not math.isnan(ways) and ways > 0 else Term(None, config.w_banks, "unresolved"))
    occ = v["occupancy_ptxas"] if not math.isnan(v.get("occupancy_ptxas", math.nan)) else v["occupancy_static"]
    src = "ptxas registers" if not math.isnan(v.get("occupancy_ptxas", math.nan)) else "estimated registers"
    terms["occupancy"] = Term(float(min(1.0, occ / config.occupancy_enough)), config.w_occupancy,
                              f"theoretical occupancy {occ:.0%} ({src})")
    spills = v.get("spill_bytes", math.nan)
    terms["spills"] = (Term(None, config.w_spills, "unknown without ptxas") if math.isnan(spills)
                       else Term(float(spills == 0), config.w_spills, f"{spills:.0f} bytes spilled"))
    return terms


_STRUCT_CODES = ("GM101", "GM102", "GM103", "GM105", "SM201", "OC601", "OC602", "DV401")


def _findings(feat: F.Features, kernel: str) -> list[str]:
    if feat.lint is None:
        return []
    return [f"{f.line}:{f.col}: {f.code} {f.message}" for f in feat.lint.findings
            if f.code in _STRUCT_CODES and f.kernel == kernel]


# ------------------------------------------------------------------ the reward

def score_launch(source: str, kernel: str, *, grid, block, smem: int = 0, args: Mapping[str, float] | None = None,
                 problem: F.Problem | None = None, arch: str = "sm_90", ptxas: bool = False, model=None,
                 baseline_ms: float | None = None, config: RewardConfig | None = None, path: str = "<candidate>",
                 measurement: Measurement | None = None, harness: str = "nvrtc") -> dict:
    """The whole reward of one launch as plain data (the CLI's `predict` and the trainers' logs)."""
    br, feat, pred = reward(source, kernel, grid=grid, block=block, smem=smem, args=args, problem=problem, arch=arch,
                            ptxas=ptxas, model=model, baseline_ms=baseline_ms, config=config, path=path,
                            measurement=measurement, harness=harness)
    out = {"kernel": kernel, "breakdown": br.to_dict(), "notes": br.notes,
           "prediction": pred, "features": dict(feat.values) if feat else None}
    return out


def reward(source: str, kernel: str, *, grid, block, smem: int = 0, args: Mapping[str, float] | None = None,
           problem: F.Problem | None = None, arch: str = "sm_90", ptxas: bool = False, model=None,
           baseline_ms: float | None = None, config: RewardConfig | None = None, path: str = "<candidate>",
           measurement: Measurement | None = None, harness: str = "nvrtc"):
    """(Breakdown, Features or None, prediction dict or None) for one candidate launch.

    harness: what builds the candidate for a real run, whose failures the compile gate foresees:
    "nvrtc", the profiler's build of device code (kernel tasks), or "nvcc", a plain host build
    (C wrappers: `nvcc -O3 -shared`, host headers, no --expt-relaxed-constexpr)."""
    if harness not in ("nvrtc", "nvcc"):
        raise ValueError(f"harness must be 'nvrtc' or 'nvcc', got {harness!r}")
    config = config or _DEFAULT_CONFIG
    gates: dict[str, Gate] = {}
    try:
        feat = F.extract(source, kernel, grid=tuple(grid), block=tuple(block), smem=smem, args=args, problem=problem,
                         arch=arch, ptxas=ptxas, path=path)
    except F.FeatureError as exc:
        gates["launch" if isinstance(exc, F.LaunchError) else "parse"] = Gate(False, str(exc))
        return Breakdown(config.fail_reward, gates), None, None
    lint = feat.lint
    ctx = F.context_of(lint, kernel)
    base = ctx.kernel.name      # the template's name, or an explicit specialization's (`k<float>`)
    gates["parse"], built = parse_gate(ctx.program, arch, harness)
    if gates["parse"].passed is False:
        return Breakdown(config.fail_reward, gates), None, None
    unbuildable = [overload_problem(ctx.program, ctx.kernel, templated="<" in kernel)] + build_problems(lint)
    # a misspelt name or member: judged where the file includes only the toolkit's headers
    unbuildable += undefined_name_problems(ctx.program)
    if harness == "nvrtc":
        unbuildable += nvrtc_source_problems(ctx.program)
        unbuildable.append(nvrtc_std_problem(ctx.program))
        # the profiler compiles the device code alone: a constexpr host helper is not there either
        unbuildable += [f"{caller.name} calls {callee.name}, a constexpr host function: the profiler's NVRTC build of "
                        f"the device code does not have it; declare it __host__ __device__"
                        for caller, callee, _, constexpr in host_calls_in_device_code(ctx.program) if constexpr]
    else:
        unbuildable += nvcc_constexpr_problems(ctx.program)
    if built is not None:       # NVRTC's word on the code the analyzer cannot read, after the static reasons
        unbuildable.append(built.detail)
    if any(unbuildable):
        gates["compile"] = Gate(False, "; ".join(p for p in unbuildable if p))
    elif config.compile:
        gates["compile"], _ = compile_gate(ctx.program, arch, as_written=harness == "nvrtc")
    else:
        gates["compile"] = Gate(None, "not checked (compile=False)")
    notes = list(feat.unresolved)
    fit = ctx.launch_fit
    cannot_launch = launch_problem(ctx, kernel)
    if cannot_launch:
        gates["launch"] = Gate(False, cannot_launch)
    elif fit == "would fail":     # from the static register estimate: likely, not known
        notes.append(f"{_no_block_fits(ctx)} by the static register estimate; ptxas would tell")
    if measurement is not None:
        measured_gates(gates, measurement)
    else:
        gates["correct"] = Gate(None, "not checked: needs a real run")
    gates.update(hacking_gates(ctx.program, base, ctx.accesses, config.reference_names))
    br = Breakdown(0.0, gates, notes=notes, findings=_findings(feat, base), baseline_ms=baseline_ms,
                   blind=blind_spots(ctx.program, ctx.kernel, ctx.accesses))
    if br.blind:    # a prediction would time the part of the work the analysis sees
        br.notes.append("no speed from the surrogate: " + "; ".join(br.blind) + " (a real run times it)")
    br.terms = structural_terms(feat, config)

    pred = None
    if model is not None:
        X = feat.vector()[None, :]
        iv = model.predict_with_uncertainty(X)
        pred = {"time_ms": float(iv.time_ms[0]), "lo_ms": float(iv.lo_ms[0]), "hi_ms": float(iv.hi_ms[0]),
                "roofline_ms": feat.roofline_s * 1e3,
                "pipe_estimate_ms": 10.0 ** (feat.values["log_time_estimate_s"] + 3.0)}
        if not br.blind:
            br.time_ms, br.interval_ms, br.speed_source = pred["time_ms"], (pred["lo_ms"], pred["hi_ms"]), "surrogate"
    if measurement is not None and measurement.status == "ok" and measurement.time_ms:
        br.time_ms, br.speed_source = float(measurement.time_ms), "measured"
    finish(br, config)
    return br, feat, pred


def launch_problem(ctx, kernel: str, opted_in: bool = True) -> str:
    """Why the launch of a kernel context (its block, its shared memory) fails, where that is known
    without running it: more threads a block than the kernel's `__launch_bounds__` (`kernel`: the
    name expression, whose template arguments decide a template's), no block fits on an SM by
    ptxas's registers or by shared memory, or (opted_in False: the code that launches it never
    raises the kernel's limit, analyzer.rules.occupancy.opts_in) more than 48 KB of shared memory a
    block. "" if none (what the static register estimate says is likely, not known: the reward
    makes it a note). A reward's harness raises the limit itself: opted_in True."""
    bound = bound_threads(ctx.program, ctx.kernel, split_name_expression(kernel)[1])
    if bound is not None and ctx.launch.threads > bound:
        return (f"a block of {ctx.launch.threads} threads is more than {ctx.kernel.name}'s "
                f"__launch_bounds__({bound}): the launch fails")
    if ctx.launch_fit == "fails":
        return _no_block_fits(ctx)
    smem = ctx.launch_smem + ctx.static_shared_bytes
    if not opted_in and ctx.launch_smem and smem > DEFAULT_SMEM_LIMIT:
        return (f"{ctx.kernel.name}'s launch asks for {smem:,} B of shared memory a block, over the "
                f"{DEFAULT_SMEM_LIMIT:,} B it gets unless cudaFuncSetAttribute(..., "
                "cudaFuncAttributeMaxDynamicSharedMemorySize, ...) raises it, which the code never calls: "
                "the launch fails (invalid argument)")
    return ""


def _no_block_fits(ctx) -> str:
    """Why no block of the launch fits on an SM (`ctx.launch_fit`: registers or shared memory over the
    SM's), so that the launch fails with 'too many resources requested'."""
    if ctx.occupancy.limiter == "registers":
        return (f"no block of {ctx.launch.threads} threads of {ctx.resources.registers} registers fits on an SM: "
                "the launch fails")
    return (f"no block with {ctx.static_shared_bytes + ctx.launch_smem:,} B of shared memory fits on an SM: "
            "the launch fails")


def measured_gates(gates: dict[str, Gate], m: Measurement, origin: str = "") -> None:
    """What a real run says about the gates: compile errors fail `compile`; `correct` is the status."""
    if m.status == "compile_error":
        gates["compile"] = Gate(False, m.message or "compile error")
    gates["correct"] = (Gate(True, "matched the reference" + (f" ({origin})" if origin else "")) if m.status == "ok"
                        else Gate(False, f"{m.status}: {m.message}".strip(": ")))


def finish(br: Breakdown, config: RewardConfig) -> Breakdown:
    """The speed term from the breakdown's time and baseline, then the reward: the failing reward
    behind a failed gate, else the weighted sum of the known terms."""
    if br.time_ms and br.baseline_ms:
        s = math.log(br.baseline_ms / br.time_ms)
        br.terms["speed"] = Term(float(min(max(s, -config.speed_clip), config.speed_clip)), config.w_speed,
                                 f"{br.baseline_ms / br.time_ms:.2f}x the baseline ({br.speed_source})")
    else:
        br.terms["speed"] = Term(None, config.w_speed, "no baseline time" if br.time_ms else "no time")
    if br.failed_gate:
        br.reward = config.fail_reward
    else:
        br.reward = float(sum(t.value * t.weight for t in br.terms.values() if t.value is not None))
    return br


def baseline_time(task_id: str, data_dirs=None) -> float | None:
    """The measured time of the task's baseline variant in the corpus (None when not measured)."""
    from corpus import store

    df = store.read(data_dirs) if data_dirs else store.read()
    if not len(df):
        return None
    sel = (df["task_id"] == task_id) & (df["baseline"]) & (df["status"] == "ok") & (df["pass"] == "main")
    rows = df[sel]
    return float(rows["time_ms"].median()) if len(rows) else None
