"""The sequential C reference of a `c` task: compiled with gcc -O3 on this CPU, called through
ctypes on numpy buffers. It produces the expected outputs (cached on disk: the largest sizes
take seconds) and the "-O3 C on one core" time that speedups are quoted against.

Inputs are drawn from one generator per buffer (seeded by the task seed and the buffer's
position), so adding or resizing one buffer never changes another's values.
"""
from __future__ import annotations

import ctypes
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from analyzer.cache import cache_root
from .c_spec import CArg, CTaskSpec, evaluate

__all__ = ["CFLAGS", "CReferenceError", "CTiming", "cpu_model", "compile_reference", "make_inputs",
           "run_reference", "expected_outputs", "expected_key", "time_reference", "load_timings", "store_timing"]

CFLAGS = ("-O3", "-march=native", "-shared", "-fPIC")
# Expected outputs that took less than this to compute are recomputed, not stored: small
# sizes are quicker to rerun than to keep, and the big ones are what the cache is for.
CACHE_MIN_S = 0.25

_CTYPES = {"float32": ctypes.c_float, "float64": ctypes.c_double, "int32": ctypes.c_int32,
           "int64": ctypes.c_int64, "uint32": ctypes.c_uint32}


class CReferenceError(RuntimeError):
    """The C reference could not be built or run (one line: file and reason)."""


@dataclass(frozen=True)
class CTiming:
    """One measured time of a C reference at one size."""

    task: str
    size: str
    ms: float                   # median of `reps` runs
    reps: int
    cpu: str                    # the CPU it ran on (one core)
    compiler: str
    flags: str


@lru_cache(maxsize=1)
def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@lru_cache(maxsize=1)
def gcc_version() -> str:
    try:
        out = subprocess.run(["gcc", "-dumpfullversion"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CReferenceError(f"gcc is needed for c tasks: {exc}") from None
    return "gcc " + out.stdout.strip()


def _build_key(source: str) -> str:
    # -march=native makes the library specific to this CPU, so the CPU is part of the key
    text = "\x00".join((source, " ".join(CFLAGS), gcc_version(), cpu_model(), platform.machine()))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def compile_reference(spec: CTaskSpec) -> Path:
    """NAME.c -> a shared library in the cache (keyed by source, flags, compiler and CPU)."""
    out_dir = cache_root() / "c_ref"
    out_dir.mkdir(parents=True, exist_ok=True)
    lib = out_dir / f"{spec.name}-{_build_key(spec.c_source)}.so"
    if lib.is_file():
        return lib
    with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
        src = Path(tmp) / f"{spec.name}.c"
        src.write_text(spec.c_source)
        tmp_lib = Path(tmp) / "lib.so"
        proc = subprocess.run(["gcc", *CFLAGS, "-o", str(tmp_lib), str(src), "-lm"],
                              capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            first = next((ln for ln in proc.stderr.splitlines() if "error:" in ln), proc.stderr.strip()[:200])
            first = first.replace(str(src), spec.c_path.name).strip()
            raise CReferenceError(f"{spec.c_path}: gcc failed: {first}")
        os.replace(tmp_lib, lib)
    return lib


_LIBS: dict[str, ctypes.CDLL] = {}


def _function(spec: CTaskSpec):
    lib_path = str(compile_reference(spec))
    if lib_path not in _LIBS:
        _LIBS[lib_path] = ctypes.CDLL(lib_path)
    try:
        fn = getattr(_LIBS[lib_path], spec.function)
    except AttributeError:
        raise CReferenceError(f"{spec.c_path}: no exported function {spec.function!r} (is it static?)") from None
    fn.restype = None
    fn.argtypes = [ctypes.c_void_p if a.is_buffer else _CTYPES[a.dtype] for a in spec.args]
    return fn


def _generate(spec: CTaskSpec, arg: CArg, index: int, size: str, seed: int) -> np.ndarray:
    n = spec.length(arg, size)
    rng = np.random.default_rng([seed, index])
    lo, hi = spec.bounds(arg.range, size)
    if arg.dtype in ("float32", "float64"):
        out = rng.random(n, dtype=np.dtype(arg.dtype).type)
        out *= out.dtype.type(hi - lo)
        out += out.dtype.type(lo)
    else:
        out = rng.integers(int(lo), int(hi), size=n, dtype=np.dtype(arg.dtype))
    if arg.diagonal is not None:
        ld = int(evaluate(arg.ld, spec.env(size)))
        dlo, dhi = spec.bounds(arg.diagonal, size)
        m = min(n // ld, ld)
        idx = np.arange(m, dtype=np.int64) * (ld + 1)
        d = rng.random(m) * (dhi - dlo) + dlo
        out[idx] = d.astype(out.dtype) if out.dtype.kind == "f" else np.rint(d).astype(out.dtype)
    return out


def make_inputs(spec: CTaskSpec, size: str, seed: int) -> dict[str, np.ndarray]:
    """Every buffer's initial contents: in/inout drawn from their ranges, out/zero zero-filled."""
    out = {}
    for i, a in enumerate(spec.args):
        if not a.is_buffer:
            continue
        if a.kind in ("in", "inout"):
            out[a.name] = _generate(spec, a, i, size, seed)
        else:
            out[a.name] = np.zeros(spec.length(a, size), dtype=a.dtype)
    return out


def _call(spec: CTaskSpec, size: str, buffers: dict[str, np.ndarray]) -> float:
    """Run the C function once on these buffers (in place); returns seconds."""
    fn = _function(spec)
    cargs = []
    for a in spec.args:
        if a.is_buffer:
            cargs.append(buffers[a.name].ctypes.data)
        else:
            cargs.append(spec.scalar(a, size))
    t0 = time.perf_counter()
    fn(*cargs)
    return time.perf_counter() - t0


def run_reference(spec: CTaskSpec, size: str, seed: int,
                  inputs: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """The C function's outputs (out, inout and zero buffers) on the seeded inputs."""
    if inputs is None:
        bufs = make_inputs(spec, size, seed)
    else:   # the C code writes only its out/inout/zero buffers: copy those, share the inputs
        written = {a.name for a in spec.args if a.kind in ("out", "inout", "zero")}
        bufs = {k: v.copy() if k in written else v for k, v in inputs.items()}
    _call(spec, size, bufs)
    return {a.name: bufs[a.name] for a in spec.args if a.kind in ("out", "inout", "zero")}


def expected_key(spec: CTaskSpec, size: str, seed: int) -> str:
    text = "\x00".join((spec.name, size, str(seed), spec.c_source, spec.toml_text, _build_key(spec.c_source)))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def expected_outputs(spec: CTaskSpec, size: str, seed: int,
                     inputs: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """run_reference, through an on-disk cache keyed by task, size, seed, both files and the build."""
    d = cache_root() / "c_expected" / f"{spec.name}-{size}-{expected_key(spec, size, seed)}"
    outs = [a.name for a in spec.args if a.kind in ("out", "inout", "zero")]
    if all((d / f"{n}.npy").is_file() for n in outs):
        try:
            return {n: np.load(d / f"{n}.npy", mmap_mode="r") for n in outs}
        except (OSError, ValueError):
            pass  # a damaged entry is recomputed
    t0 = time.perf_counter()
    got = run_reference(spec, size, seed, inputs)
    if time.perf_counter() - t0 >= CACHE_MIN_S:
        d.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=d.parent, prefix=".tmp-"))
        try:
            for n, arr in got.items():
                np.save(tmp / f"{n}.npy", arr)
            os.replace(tmp, d)
        except OSError:  # another process stored it first, or the disk is full: the values are still good
            shutil.rmtree(tmp, ignore_errors=True)
    return got


def time_reference(spec: CTaskSpec, size: str, seed: int, reps: int = 5, budget_s: float = 10.0) -> CTiming:
    """Median wall time of the C function on one core: one warm-up run, then up to `reps` runs
    (fewer once `budget_s` is spent, at least three), each on fresh copies of inout buffers."""
    base = make_inputs(spec, size, seed)
    written = [a.name for a in spec.args if a.kind in ("inout", "zero", "out")]
    times: list[float] = []
    spent = 0.0
    for i in range(reps + 1):
        bufs = dict(base)
        for n in written:
            bufs[n] = base[n].copy()
        t = _call(spec, size, bufs)
        spent += t
        if i > 0:
            times.append(t)
            if len(times) >= 3 and spent > budget_s:
                break
    return CTiming(spec.name, size, statistics.median(times) * 1e3, len(times), cpu_model(), gcc_version(),
                   " ".join(CFLAGS))


def load_timings() -> dict[str, dict]:
    f = cache_root() / "c_times.json"
    try:
        return json.loads(f.read_text())
    except (OSError, ValueError):
        return {}


def store_timing(key: str, t: CTiming) -> None:
    f = cache_root() / "c_times.json"
    f.parent.mkdir(parents=True, exist_ok=True)
    data = load_timings()
    data[key] = asdict(t)
    tmp = f.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(tmp, f)
