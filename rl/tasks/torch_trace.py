"""Load a torch candidate module and watch what its forward does.

A candidate is a Python file defining `ModelNew`, building its CUDA with
`torch.utils.cpp_extension.load_inline`. While the candidate runs, `load_inline` is
replaced by one of ours:

- `build=False` (any machine, no compiler, no GPU): nothing is compiled; the call returns a
  stand-in extension whose functions record their arguments and return a meta tensor of
  the shape the C++ wrapper would return (`torch_static.bind_call`);
- `build=True` (a CUDA build of torch): the real `load_inline`, under a name and build
  directory keyed by the hash of the sources and flags, so one source is compiled once and
  two candidates that reuse an extension name never clash; the returned module is wrapped
  to record calls the same way.

`trace_forward` runs one forward under a TorchDispatchMode: every ATen op the candidate's
Python runs outside its extension calls is listed (a candidate that leaves the work to
PyTorch shows it there), and so are the ops the extension's C++ dispatches (real builds
only: a wrapper calling torch::matmul).
"""
from __future__ import annotations

import contextlib
import hashlib
import inspect
import re
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from analyzer.cache import cache_root
from analyzer.directives import torch_defines
from .torch_static import CallBinding, CudaUnit, TensorInfo, bind_call, tensor_info

__all__ = ["CandidateError", "BuildError", "Build", "ExtCall", "Trace", "Candidate", "load_candidate", "trace_forward",
           "arg_info", "FREE_OPS", "cache_dir", "reference_ops", "reference_run", "returned_inputs", "GlobalsGuard"]

# ATen ops that move no data through arithmetic: views, allocation, metadata. Copies (clone,
# copy_, _to_copy) are work: `x.t().contiguous()` is the whole of a transpose task.
FREE_OPS = frozenset({
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like", "new_zeros",
    "ones", "ones_like", "new_ones", "full", "full_like", "new_full", "fill_", "zero_", "scalar_tensor", "arange",
    "view", "_unsafe_view", "reshape", "_reshape_alias", "as_strided", "t", "transpose", "permute", "expand",
    "squeeze", "unsqueeze", "slice", "select", "split", "split_with_sizes", "chunk", "unbind", "narrow", "alias",
    "detach", "lift_fresh", "view_as", "unflatten", "flatten", "sym_size", "sym_stride", "sym_numel",
    "sym_storage_offset", "is_contiguous", "_local_scalar_dense", "resize_", "set_", "item", "dim", "size",
    "stride", "numel", "is_same_size", "record_stream",
})


class CandidateError(Exception):
    """The candidate cannot be loaded or run; the message is one line."""


class BuildError(CandidateError):
    """load_inline failed to compile or load the candidate's extension."""


def cache_dir() -> Path:
    return cache_root() / "torch_extensions"


def _strings(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)]


@dataclass
class Build:
    """One load_inline call of the candidate."""

    name: str
    cuda_sources: list[str]
    cpp_sources: list[str]
    functions: list[str] | None
    units: list[CudaUnit] = field(default_factory=list, repr=False)
    built_name: str = ""                 # the hashed name it was compiled under (build=True)
    # the `-D` names of PyTorch's nvcc command line its extra_cuda_cflags leave (directives.torch_defines)
    defines: tuple[str, ...] = ()


@dataclass
class ExtCall:
    """One call of an extension function during a traced forward."""

    build: str
    function: str
    args: list[Any]                      # TensorInfo, numbers, tuples, None
    binding: CallBinding
    result_assumed: bool = False         # stand-in only: the output shape was not computable
    inner_ops: list[str] = field(default_factory=list)   # ATen ops the C++ side dispatched (real builds)

    @property
    def tensor_bytes(self) -> int:
        n = sum(a.nbytes for a in self.args if isinstance(a, TensorInfo))
        return n + (self.binding.result.nbytes if self.binding.result is not None else 0)


@dataclass
class Trace:
    calls: list[ExtCall] = field(default_factory=list)
    torch_ops: list[str] = field(default_factory=list)   # compute ops run outside extension calls
    error: str = ""
    output: Any = field(default=None, repr=False)       # what the forward returned (kept for the output checks)

    @property
    def ok(self) -> bool:
        return not self.error


def arg_info(a) -> Any:
    import torch

    if isinstance(a, torch.Tensor):
        return tensor_info(a)
    if isinstance(a, bool):
        return int(a)
    if isinstance(a, (int, float)):
        return a
    if isinstance(a, (list, tuple)) and all(isinstance(x, (int, float)) for x in a):
        return tuple(a)
    return None


class _Recorder:
    """Shared by every extension of one candidate: where calls go while a trace runs."""

    def __init__(self) -> None:
        self.trace: Trace | None = None
        self.depth = 0                   # > 0 while inside an extension call
        self.calls = 0                   # every extension call, traced or not (the timing check counts them)


class _Extension(types.ModuleType):
    """The object load_inline returned, as the candidate sees it: calls are recorded, then run
    (real build) or answered with a meta tensor of the wrapper's output shape (stand-in)."""

    def __init__(self, build: Build, recorder: _Recorder, real: Any | None) -> None:
        super().__init__(build.name)
        self._build = build
        self._recorder = recorder
        self._real = real

    def __getattr__(self, fname: str):
        if fname.startswith("__"):
            raise AttributeError(fname)
        build = self._build
        if self._real is not None:
            target = getattr(self._real, fname)
        elif build.functions is not None and fname not in build.functions:
            raise AttributeError(f"extension {build.name!r} has no function {fname!r} (functions={build.functions})")
        else:
            target = None
        recorder = self._recorder

        def call(*args, **kwargs):
            recorder.calls += 1
            trace = recorder.trace
            if trace is None and target is not None:    # timing: no bookkeeping beyond the count
                return target(*args, **kwargs)
            infos = [arg_info(a) for a in list(args) + list(kwargs.values())]
            rec = ExtCall(build.name, fname, infos, bind_call(build.units, fname, infos))
            if trace is not None:
                trace.calls.append(rec)
            recorder.depth += 1
            try:
                if target is not None:
                    return target(*args, **kwargs)
                return _stand_in_result(rec, args)
            finally:
                recorder.depth -= 1

        call.__name__ = fname
        self.__dict__[fname] = call         # found directly from now on: attribute lookups stay cheap
        return call


def _stand_in_result(rec: ExtCall, args):
    import torch

    b = rec.binding
    if b.void:
        return None
    if b.result is not None:
        return torch.empty(b.result.shape, dtype=getattr(torch, b.result.dtype, torch.float32), device="meta")
    first = next((a for a in args if isinstance(a, torch.Tensor)), None)
    rec.result_assumed = True
    b.notes.append(f"{rec.function}: output shape not computable from the C++; assumed like its first tensor "
                   "argument for the rest of the trace")
    return torch.empty_like(first, device="meta") if first is not None else None


def _source_hash(kwargs: dict) -> str:
    h = hashlib.sha256()
    for key in ("cpp_sources", "cuda_sources", "functions", "extra_cflags", "extra_cuda_cflags", "extra_ldflags",
                "extra_include_paths", "with_cuda"):
        h.update(f"{key}={kwargs.get(key)!r}\n".encode())
    import torch

    h.update(torch.__version__.encode())
    return h.hexdigest()[:16]


@dataclass
class Candidate:
    path: Path
    module: types.ModuleType
    builds: list[Build]
    recorder: _Recorder = field(repr=False)
    built: bool

    @property
    def units(self) -> list[CudaUnit]:
        return [u for b in self.builds for u in b.units]

    @contextlib.contextmanager
    def active(self):
        """Keep our load_inline in place (a candidate may build lazily, in __init__ or forward)."""
        with _patched(self):
            yield


_REAL_LOAD_INLINE: Callable | None = None


@contextlib.contextmanager
def _patched(cand: "Candidate"):
    from torch.utils import cpp_extension

    global _REAL_LOAD_INLINE
    if _REAL_LOAD_INLINE is None:
        _REAL_LOAD_INLINE = cpp_extension.load_inline
    real = _REAL_LOAD_INLINE

    signature = inspect.signature(real)

    def load_inline(*args, **kwargs):
        try:        # bound as the real load_inline binds them, positional or keyword
            kw = dict(signature.bind(*args, **kwargs).arguments)
        except TypeError as exc:
            raise CandidateError(f"load_inline: {exc}") from None
        name, functions = kw.get("name"), kw.get("functions")
        funcs = [functions] if isinstance(functions, str) else (list(functions) if functions is not None else None)
        build = Build(str(name), _strings(kw.get("cuda_sources")), _strings(kw.get("cpp_sources")), funcs,
                      defines=torch_defines(_strings(kw.get("extra_cuda_cflags"))))
        build.units = [CudaUnit.of(len(cand.units) + i, s, f"{cand.path}:cuda_sources")
                       for i, s in enumerate(build.cuda_sources)]
        cand.builds.append(build)
        module = None
        if cand.built:
            # the hash alone names the build: the same sources under another name= reuse it
            build.built_name = f"cudaperf_ext_{_source_hash(kw)}"
            directory = cache_dir() / build.built_name
            directory.mkdir(parents=True, exist_ok=True)
            kw.update(name=build.built_name, build_directory=str(directory))
            try:
                module = real(**kw)
            except Exception as exc:  # noqa: BLE001 - a compiler or loader failure of the candidate's code
                raise BuildError(f"build failed for extension {build.name!r}: {_one_line(exc)}") from None
        return _Extension(build, cand.recorder, module)

    saved = cpp_extension.load_inline
    cpp_extension.load_inline = load_inline
    try:
        yield
    finally:
        cpp_extension.load_inline = saved


def _one_line(exc: BaseException) -> str:
    lines = [l.strip() for l in str(exc).strip().splitlines() if l.strip()]
    # a compiler log: its first `error:` line says the most (the first line only names the build)
    err = next((l for l in lines if re.search(r"\berror\b\s*(:|[A-Z]+\d+)", l)),
               next((l for l in lines if re.search(r"\berror\b", l, re.I)), lines[0] if lines else ""))
    return f"{type(exc).__name__}: {err}"[:400]


def load_candidate(path: str | Path, *, build: bool) -> Candidate:
    """Run the candidate file as a module; CandidateError (one line) when it cannot be, or defines no ModelNew."""
    from .torch_kind import compile_file

    path = Path(path)
    text, code = compile_file(path, CandidateError)
    name = f"cudaperf_candidate_{hashlib.sha256(text.encode()).hexdigest()[:12]}"
    module = types.ModuleType(name)
    module.__file__ = str(path)
    cand = Candidate(path, module, [], _Recorder(), build)
    sys.modules[name] = module
    try:
        with cand.active():
            exec(code, module.__dict__)
    except KeyboardInterrupt:
        raise
    except CandidateError as exc:
        raise type(exc)(f"{path}: {exc}") from None
    except BaseException as exc:  # noqa: BLE001 - whatever the candidate raises is its own failure
        raise CandidateError(f"{path}: running the module failed: {_one_line(exc)}") from None
    if not isinstance(module.__dict__.get("ModelNew"), type):
        raise CandidateError(f"{path}: defines no class ModelNew")
    return cand


def trace_forward(cand: Candidate, model, inputs: list) -> Trace:
    """One forward of `model` (the candidate's ModelNew) on `inputs`, watched."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    trace = Trace()
    rec = cand.recorder

    class Watch(TorchDispatchMode):
        def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
            name = func.overloadpacket.__name__
            if name not in FREE_OPS:
                op = f"aten.{name.removesuffix('_')}"       # relu_ and relu are the same work
                if rec.depth == 0:
                    trace.torch_ops.append(op)
                elif trace.calls:
                    trace.calls[-1].inner_ops.append(op)
            return func(*args, **(kwargs or {}))

    rec.trace = trace
    try:
        with cand.active(), torch.no_grad(), Watch():
            trace.output = model(*inputs)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001
        trace.error = f"forward failed: {_one_line(exc)}"
    finally:
        rec.trace = None
    return trace


def reference_ops(model, inputs: list) -> list[str]:
    """The compute ops the reference's forward runs (same filter as the candidate's)."""
    return reference_run(model, inputs)[0]


def reference_run(model, inputs: list) -> tuple[list[str], Any]:
    """(the compute ops the reference's forward runs, what it returns)."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    ops: list[str] = []

    class Watch(TorchDispatchMode):
        def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
            name = func.overloadpacket.__name__
            if name not in FREE_OPS:
                ops.append(f"aten.{name.removesuffix('_')}")
            return func(*args, **(kwargs or {}))

    with torch.no_grad(), Watch():
        out = model(*inputs)
    return ops, out


def returned_inputs(output, inputs: list) -> list[int]:
    """Indices of the inputs that an output tensor is, or is a view of: a forward returning its
    own argument computed nothing (an in-place kernel on the input counts: it changes the
    caller's data, and the reference never does)."""
    import torch

    outs = output if isinstance(output, (tuple, list)) else (output,)
    found = []
    for i, x in enumerate(inputs):
        if not isinstance(x, torch.Tensor):
            continue
        if any(isinstance(o, torch.Tensor) and (o is x or torch._C._is_alias_of(o, x)) for o in outs):
            found.append(i)
    return found


def _is_code(value) -> bool:
    return callable(value) or isinstance(value, (staticmethod, classmethod, property))


class GlobalsGuard:
    """What a candidate could patch to fake its result or its time, watched and put back.

    A snapshot of the functions and classes in the namespaces the evaluation relies on (torch,
    torch.nn.functional, Tensor, the CUDA event and stream classes, time, statistics, the task's
    problem module and its Model, our own evaluation modules). `changed()` names every callable
    that was replaced or removed (and, on classes, added: `Model.__call__ = ...`); `restore()`
    puts the originals back, so that one candidate's patch never leaks into the next evaluation.
    Plain data (flags such as torch.cuda._initialized) changes legitimately and is not watched."""

    def __init__(self, extra: dict[str, Any] | None = None) -> None:
        import math
        import statistics
        import time

        import torch
        import torch._dynamo  # noqa: F401 - its first import wraps torch.manual_seed and others: done
        import torch.nn.functional as F  # before the snapshot so it is not taken for a candidate's patch

        watched: dict[str, Any] = {"torch": torch, "torch.nn.functional": F, "torch.Tensor": torch.Tensor,
                                   "torch.nn.Module": torch.nn.Module, "torch.cuda": torch.cuda,
                                   "torch.cuda.Event": torch.cuda.Event, "torch.cuda.Stream": torch.cuda.Stream,
                                   "time": time, "statistics": statistics, "math": math}
        for name in ("rl.tasks.torch_eval", "rl.tasks.torch_trace", "rl.tasks.torch_kind"):
            if name in sys.modules:
                watched[name] = sys.modules[name]
        for name, mod in list(sys.modules.items()):
            # every problem module loaded so far: a candidate reaching through sys.modules may patch
            # another task's Model than its own, and that must be put back too
            if name.startswith("cudaperf_torch_task_") and isinstance(getattr(mod, "Model", None), type):
                watched[name] = mod
                watched[f"{name}.Model"] = mod.Model
        ours = {id(v) for v in (extra or {}).values()}       # the task's own, under its short label
        watched = {k: v for k, v in watched.items() if id(v) not in ours}
        watched.update(extra or {})
        self._saved = [(label, obj, dict(vars(obj))) for label, obj in watched.items()]

    def _diff(self):
        for label, obj, before in self._saved:
            now = vars(obj)
            is_class = isinstance(obj, type)
            for key, old in before.items():
                if _is_code(old) and now.get(key, None) is not old:
                    yield label, obj, key, old
            if is_class:
                for key in now.keys() - before.keys():
                    if _is_code(now[key]):
                        yield label, obj, key, None

    def changed(self) -> list[str]:
        return sorted({f"{label}.{key}" for label, _, key, _ in self._diff()})

    def restore(self) -> list[str]:
        """Put every patched callable back; the names that were patched."""
        diffs = list(self._diff())
        for _, obj, key, old in diffs:
            try:
                if old is None:
                    delattr(obj, key)
                else:
                    setattr(obj, key, old)
            except (AttributeError, TypeError):
                pass            # a read-only slot the candidate could not have changed either
        return sorted({f"{label}.{key}" for label, _, key, _ in diffs})
