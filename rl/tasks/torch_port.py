"""Raw-kernel ports of `torch` tasks: a kernel plus a launch spec instead of a load_inline module.

A `torch` task says *what* to compute (a PyTorch `Model`); a port says how its tensors reach a
CUDA kernel: NAME.toml beside the problem file's name in rl/suites/torch/ports binds each kernel
argument to a forward input, a parameter of `Model`, an output, or a size expression, and gives
the naive port's launch (NAME.cu) and the task's cost. With a port, a torch task has what a `c`
task has: a baseline Sample (the naive port) and candidates (our variants in
ports/variants/NAME/*.cu, and any reply in the `// launch:` format), so the profiler, the
surrogate, the reward core, `Replay` and the RL environment work on it unchanged. Its inputs
are the problem file's own `get_inputs()` under the sample's seed, its expected outputs
`Model`'s forward on the CPU (`problem` below).

    kernel = "relu_naive"             # the extern "C" kernel of NAME.cu
    sizes = ["small", "medium"]       # optional: the problem's sizes that get a port (default: all)

    [[args]]                          # in the kernel's parameter order
    name = "x"
    kind = "in"                       # in | out | zero (outputs zeroed first) | scalar
    dtype = "float32"
    length = "BATCH * DIM"            # element count, an expression over the size constants
    from = "input 0"                  # input N | param NAME (Model's state_dict key) | output N

    [[args]]
    name = "n"
    kind = "scalar"
    dtype = "int32"
    value = "BATCH * DIM"             # default: the size constant of the argument's name

    [check]                           # optional: default the task's ATOL/RTOL
    [cost]                            # bytes and flops, expressions
    [launch]                          # grid, block (1-3 expressions), smem

Expressions are integer arithmetic over the problem file's upper-case constants at that size,
with cdiv, min and max (the `c` task grammar, `rl.tasks.c_spec.evaluate`).
"""
from __future__ import annotations

import dataclasses
import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from analyzer.profile.spec import Buffer, Problem, Scalar
from corpus.families.base import Sample

from .c_spec import DTYPES, TaskFileError, _as_int, _check_params, _need, dim3, evaluate, kernel_prototype

__all__ = ["PORTS_DIR", "PortArg", "PortSpec", "read_port", "port_of", "port_samples", "with_port", "problem",
           "PROBLEM"]

PORTS_DIR = Path(__file__).resolve().parent.parent / "suites" / "torch" / "ports"
PROBLEM = "rl.tasks.torch_port:problem"
_KINDS = ("scalar", "in", "out", "zero")
_TOP_KEYS = {"kernel", "sizes", "args", "check", "cost", "launch"}
_ARG_KEYS = {"name", "kind", "dtype", "length", "value", "from"}
_FROM = re.compile(r"^(input|output)\s+(\d+)$|^param\s+([A-Za-z_][\w.]*)$")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_MAX_BLOCK = 1024
_SEED = 0


@dataclass(frozen=True)
class PortArg:
    name: str
    kind: str                    # scalar | in | out | zero
    dtype: str
    length: str | int = ""       # buffers
    value: str | int | float = ""  # scalars
    source: str = ""             # buffers: "input N" | "param NAME" | "output N"

    @property
    def is_buffer(self) -> bool:
        return self.kind != "scalar"


@dataclass(frozen=True)
class PortSpec:
    name: str                    # the problem file's stem
    path: Path                   # NAME.toml
    kernel: str
    args: tuple[PortArg, ...]
    sizes: tuple[str, ...] = ()  # empty: every size of the problem
    atol: float | None = None
    rtol: float | None = None
    bytes: str | int = 0
    flops: str | int = 0
    grid: tuple[str | int, ...] = (1,)
    block: tuple[str | int, ...] = (1,)
    smem: str | int = 0
    cu_source: str = field(default="", repr=False)

    def variant_files(self) -> list[Path]:
        d = self.path.parent / "variants" / self.name
        return sorted(d.glob("*.cu")) if d.is_dir() else []


def _parse_arg(i: int, t: Any) -> PortArg:
    if not isinstance(t, dict):
        raise ValueError(f"args[{i}] must be a table")
    unknown = set(t) - _ARG_KEYS
    if unknown:
        raise ValueError(f"unknown key {sorted(unknown)[0]!r} in args[{i}] (allowed: {', '.join(sorted(_ARG_KEYS))})")
    name = _need(t, "name", str, f" in args[{i}]")
    if not _NAME.match(name):
        raise ValueError(f"args[{i}]: {name!r} is not a C identifier")
    where = f" in argument {name!r}"
    kind = _need(t, "kind", str, where)
    if kind not in _KINDS:
        raise ValueError(f"argument {name!r}: unknown kind {kind!r} (one of {', '.join(_KINDS)})")
    dtype = _need(t, "dtype", str, where)
    if dtype not in DTYPES:
        raise ValueError(f"argument {name!r}: unknown dtype {dtype!r} (one of {', '.join(DTYPES)})")
    if kind == "scalar":
        if "length" in t or "from" in t:
            raise ValueError(f"argument {name!r}: a scalar has a value, not length/from")
        value = t.get("value", "")
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise ValueError(f"argument {name!r}: value must be a number or an expression")
        return PortArg(name, kind, dtype, value=value)
    if "value" in t:
        raise ValueError(f"argument {name!r}: a buffer takes 'from', not 'value'")
    source = " ".join(_need(t, "from", str, where).split())
    m = _FROM.match(source)
    if m is None:
        raise ValueError(f"argument {name!r}: from = {source!r} is not 'input N', 'param NAME' or 'output N'")
    if (kind == "in") != (m.group(1) != "output"):
        raise ValueError(f"argument {name!r}: an {kind} buffer cannot come from {source!r}")
    return PortArg(name, kind, dtype, length=_need(t, "length", (str, int), where), source=source)


def _parse(path: Path) -> PortSpec:
    cu = path.with_suffix(".cu")
    if not cu.is_file():
        raise ValueError(f"missing {cu.name} beside it (a port is NAME.toml + NAME.cu)")
    try:
        doc = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"not valid TOML: {exc}") from None
    unknown = set(doc) - _TOP_KEYS
    if unknown:
        raise ValueError(f"unknown key {sorted(unknown)[0]!r} (allowed: {', '.join(sorted(_TOP_KEYS))})")
    args = tuple(_parse_arg(i, t) for i, t in enumerate(_need(doc, "args", list, "")))
    names = [a.name for a in args]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup:
        raise ValueError(f"argument {dup!r} is listed twice")
    if not any(a.kind in ("out", "zero") for a in args):
        raise ValueError("no output: at least one argument must be an out or zero buffer")
    sizes = doc.get("sizes", [])
    if not (isinstance(sizes, list) and all(isinstance(s, str) for s in sizes)):
        raise ValueError("sizes must be a list of size names")
    check = doc.get("check", {})
    cost = _need(doc, "cost", dict, "")
    launch = _need(doc, "launch", dict, "")
    grid, block = _need(launch, "grid", list, " in [launch]"), _need(launch, "block", list, " in [launch]")
    for what, dims in (("grid", grid), ("block", block)):
        if not 1 <= len(dims) <= 3:
            raise ValueError(f"launch.{what} must list 1 to 3 dimensions")
    spec = PortSpec(
        name=path.stem, path=path, kernel=_need(doc, "kernel", str, ""), args=args, sizes=tuple(sizes),
        atol=float(check["atol"]) if "atol" in check else None, rtol=float(check["rtol"]) if "rtol" in check else None,
        bytes=_need(cost, "bytes", (str, int), " in [cost]"), flops=_need(cost, "flops", (str, int), " in [cost]"),
        grid=tuple(grid), block=tuple(block), smem=launch.get("smem", 0), cu_source=cu.read_text())
    _check_params(kernel_prototype(spec.cu_source, spec.kernel), args, f"{cu.name}: kernel {spec.kernel}")
    return spec


def read_port(path: str | Path) -> PortSpec:
    """Read and check NAME.toml (with NAME.cu beside it); TaskFileError (one line, naming the file)."""
    path = Path(path)
    try:
        return _parse(path)
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        raise TaskFileError(f"{path}: {' '.join(str(exc).split())}") from None


@lru_cache(maxsize=None)
def port_of(name: str, directory: str | None = None) -> PortSpec | None:
    """The port of problem NAME (in `directory`, default the suite's ports), or None."""
    path = (Path(directory) if directory else PORTS_DIR) / f"{name}.toml"
    return read_port(path) if path.is_file() else None


# ------------------------------------------------------------------ samples

def size_env(task: Any) -> dict[str, int | float]:
    """The problem file's upper-case numeric constants at the task's size."""
    mod = task.module()
    env = {k: v for k, v in vars(mod).items()
           if k.isupper() and isinstance(v, (int, float)) and not isinstance(v, bool)}
    env.update({k: v for k, v in task.constants.items() if isinstance(v, (int, float)) and not isinstance(v, bool)})
    return env


def port_samples(spec: PortSpec, task: Any, seed: int = _SEED) -> Sample:
    """The naive port's Sample for one torch task (one problem at one size)."""
    env = size_env(task)
    try:
        args = []
        for a in spec.args:
            if a.is_buffer:
                args.append(Buffer(a.name, a.dtype, _as_int(evaluate(a.length, env), f"length of {a.name}"),
                                   "zero" if a.kind == "zero" else a.kind))
            else:
                v = evaluate(a.value if a.value != "" else a.name, env)
                args.append(Scalar(a.name, a.dtype, _as_int(v, f"scalar {a.name}") if "int" in a.dtype else float(v)))
        grid, block = dim3(spec.grid, env, "grid"), dim3(spec.block, env, "block")
        smem = _as_int(evaluate(spec.smem, env), "smem")
        nbytes = _as_int(evaluate(spec.bytes, env), "bytes")
        flops = _as_int(evaluate(spec.flops, env), "flops")
    except (ValueError, KeyError, ZeroDivisionError) as exc:
        raise TaskFileError(f"{spec.path}: size {task.size!r}: {' '.join(str(exc).split())}") from None
    if block[0] * block[1] * block[2] > _MAX_BLOCK or min(grid + block) <= 0:
        raise TaskFileError(f"{spec.path}: size {task.size!r}: launch grid={grid} block={block} is not valid")
    return Sample(
        family=f"torch_{spec.name}", variant="naive_port", size=task.size, source=spec.cu_source, kernel=spec.kernel,
        grid=grid, block=block, args=tuple(args), problem=PROBLEM,
        problem_kwargs={"task": task.id, "seed": seed}, smem=smem, params={"kind": "naive_port"},
        bytes=nbytes, flops=flops, atol=task.atol if spec.atol is None else spec.atol,
        rtol=task.rtol if spec.rtol is None else spec.rtol, baseline=True, origin="family", style="torch_port")


def with_port(task: Any, spec: PortSpec | None = None) -> Any:
    """The task with its port's baseline and candidates (the naive port, then our variants), or
    the task unchanged when its problem has no port or the port skips this size."""
    from .c_kind import variant_params
    from rl.submission import SubmissionError, parse_submission

    spec = spec if spec is not None else port_of(task.name)
    if spec is None or (spec.sizes and task.size not in spec.sizes):
        return task
    base = port_samples(spec, task)
    bare = dataclasses.replace(task, baseline=base, candidates=(base,))
    cands = [base]
    for path in spec.variant_files():
        text = path.read_text()
        try:
            s = parse_submission(bare, text)
            params = variant_params(text)
        except (SubmissionError, TaskFileError) as exc:
            raise TaskFileError(f"{path}: {exc}") from None
        cands.append(dataclasses.replace(s, variant=path.stem, params=params or {"kind": path.stem},
                                         origin="family", style="torch_port"))
    seen: set[str] = set()
    uniq = tuple(s for s in cands if not (s.sample_id in seen or seen.add(s.sample_id)))
    meta = dict(task.meta, port=str(spec.path), torch_source=task.source(),
                bindings={a.name: a.source for a in spec.args if a.is_buffer})
    return dataclasses.replace(task, baseline=base, candidates=uniq, meta=meta)


# ------------------------------------------------------------------ the profiler's problem

def _flat_outputs(out: Any) -> list:
    import torch

    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat_outputs(o)]
    raise TypeError(f"the reference returned {type(out).__name__}, not tensors")


def _array(t: Any, arg: Buffer, what: str):
    import numpy as np

    a = t.detach().to("cpu").contiguous().numpy().reshape(-1)
    if a.size != arg.size:
        raise ValueError(f"{arg.name}: {what} has {a.size} elements, the port says {arg.size}")
    want = np.dtype(arg.dtype) if arg.dtype != "bfloat16" else None
    if want is None or a.dtype != want:
        raise ValueError(f"{arg.name}: {what} is {a.dtype}, the port says {arg.dtype}")
    return a


def problem(task: str, seed: int = _SEED) -> Problem:
    """Seeded inputs from the problem's get_inputs() and Model's parameters, and the expected
    outputs of Model's forward on the CPU, bound to the port's kernel arguments."""
    import torch
    from . import get

    t = get(task)
    inputs = t.make_inputs(seed, "cpu")
    model = t.reference_model("cpu")
    with torch.no_grad():
        outs = _flat_outputs(model(*inputs))
    state = dict(model.state_dict())
    ins, expected = {}, {}
    for a in t.baseline.args:
        if not isinstance(a, Buffer):
            continue
        src = next(p.source for p in port_of(t.name).args if p.name == a.name)
        what, _, ref = src.partition(" ")
        if what == "input":
            if int(ref) >= len(inputs):
                raise ValueError(f"{a.name}: from {src!r} but forward takes {len(inputs)} inputs")
            ins[a.name] = _array(inputs[int(ref)], a, src)
        elif what == "param":
            if ref not in state:
                raise ValueError(f"{a.name}: Model has no parameter or buffer {ref!r} ({', '.join(state)})")
            ins[a.name] = _array(state[ref], a, src)
        else:
            if int(ref) >= len(outs):
                raise ValueError(f"{a.name}: from {src!r} but forward returns {len(outs)} outputs")
            expected[a.name] = _array(outs[int(ref)], a, src)
    return Problem(inputs=ins, expected=expected)


# ------------------------------------------------------------------ checking ports (no GPU needed)

def check_port(name: str, compile: bool = True, build_problem: str | None = "small") -> list[str]:
    """Problems with port NAME, one line each ([] when none): the spec and every variant parse at
    every size, every candidate compiles with NVRTC (when present), and the problem's inputs and
    the CPU reference's outputs match the port's bindings at size `build_problem`."""
    from .c_kind import nvrtc_error

    errors: list[str] = []
    try:
        spec = port_of(name)
    except TaskFileError as exc:
        return [str(exc)]
    if spec is None:
        return [f"no port {name!r} in {PORTS_DIR}"]
    tasks = [t for tid, t in sorted(_torch_tasks().items()) if t.name == name]
    if not tasks:
        return [f"{spec.path}: no torch problem {name!r}"]
    ported = []
    for t in tasks:
        try:
            ported.append(with_port(t, spec))
        except TaskFileError as exc:
            errors.append(str(exc))
    seen: set[tuple[str, str]] = set()
    for t in ported:
        for s in t.candidates:
            if not compile or (s.source, s.kernel) in seen:
                continue
            seen.add((s.source, s.kernel))
            err = nvrtc_error(s.source, s.kernel, f"{spec.path.parent}/{s.variant}")
            if err:
                errors.append(err)
    if build_problem:
        for t in ported:
            if t.size == build_problem and t.baseline is not None:
                try:
                    problem(t.id)
                except Exception as exc:  # noqa: BLE001 - every binding error is reported, one line
                    errors.append(f"{spec.path}: size {t.size!r}: {type(exc).__name__}: {str(exc).splitlines()[0]}")
    return errors


def _torch_tasks() -> dict[str, Any]:
    from .torch_kind import suite_tasks

    return suite_tasks()


def main(argv: list[str] | None = None) -> int:
    """`python -m rl.tasks.torch_port [NAME ...]`: check the ports (all of them by default)."""
    import sys

    names = (argv if argv is not None else sys.argv[1:]) or sorted(p.stem for p in PORTS_DIR.glob("*.toml"))
    bad = 0
    for name in names:
        errs = check_port(name)
        tasks = [t for t in _torch_tasks().values() if t.name == name and t.baseline is not None]
        n = sum(len(t.candidates) for t in tasks)
        print(f"{name:<28} {len(tasks)} size(s), {n} candidate launches: {'ok' if not errs else 'FAILED'}")
        for e in errs:
            print(f"  {e}")
        bad += bool(errs)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
