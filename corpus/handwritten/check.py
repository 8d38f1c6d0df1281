"""Developer checks for the handwritten kernels: NVRTC compile and GPU run.

    python -m corpus.handwritten.check nvrtc          # no GPU needed (cuda-bindings + NVRTC)
    python -m corpus.handwritten.check gpu [--all]    # needs CuPy and a GPU

`nvrtc` compiles every .cu the way the profiler does (NVRTC, sm_90, the CUDA
include directory on the path) and checks that every kernel name expression
resolves. `gpu` launches every sample (smallest size only unless --all),
compares the outputs with the reference using the sample's tolerances and
prints one line per sample with the median time of a few launches. It is a
smoke test for these kernels, not the corpus profiler.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from corpus.families.base import Buffer, Sample, build_problem

from . import GROUPS, KERNELS, samples, samples_for, source
from .spec import Size

# Sizes that no catalogue entry uses: grids overhang, rows are not a multiple of
# the warps per block, columns leave lane tails, n leaves vector tails
# (n % 16 == 12 keeps the float4 field alignment the SoA kernel needs).
_ODD = {"rows": 1003, "cols": 1032, "n": 1_000_012, "tokens": 1003, "dim": 1032, "vocab": 777, "d": 1032}


def odd_samples() -> list[Sample]:
    out = []
    for spec in KERNELS:
        kw = {k: _ODD[k] for k in GROUPS[spec.family].sizes[0].kwargs}
        out.extend(samples_for(spec, (Size("odd", kw),)))
    return out


def _include_dirs() -> list[str]:
    """The toolkit's include directory and, from CUDA 13 on, its cccl/ subdirectory:
    cooperative_groups.h includes <cuda/std/type_traits>, which lives there
    (nvcc adds it by itself; NVRTC needs it named)."""
    for cand in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda", *sorted(Path("/usr/local").glob("cuda-*"))):
        inc = Path(cand) / "include" if cand else None
        if inc and (inc / "cuda_fp16.h").exists():
            return [str(inc)] + ([str(inc / "cccl")] if (inc / "cccl").is_dir() else [])
    return []


def names_by_file() -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for s in samples():
        out[s.params["file"]].add(s.kernel)
    return dict(out)


def nvrtc_compile(src: str, name: str, names: set[str], arch: str = "sm_90") -> str | None:
    """Compile with NVRTC and resolve every name; None on success, else the log."""
    from cuda.bindings import nvrtc

    def ok(res) -> bool:
        return res == nvrtc.nvrtcResult.NVRTC_SUCCESS

    err, prog = nvrtc.nvrtcCreateProgram(src.encode(), name.encode(), 0, [], [])
    if not ok(err):
        return f"create failed: {err}"
    try:
        for n in names:
            (err,) = nvrtc.nvrtcAddNameExpression(prog, n.encode())
            if not ok(err):
                return f"name expression {n!r}: {err}"
        opts = [f"--gpu-architecture={arch}".encode(), b"-std=c++17"] + [f"-I{d}".encode() for d in _include_dirs()]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        if not ok(err):
            _, size = nvrtc.nvrtcGetProgramLogSize(prog)
            log = b" " * size
            nvrtc.nvrtcGetProgramLog(prog, log)
            return log.decode(errors="replace")
        for n in names:
            err, lowered = nvrtc.nvrtcGetLoweredName(prog, n.encode())
            if not ok(err) or not lowered:
                return f"no lowered name for {n!r}: {err}"
        return None
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def check_nvrtc() -> int:
    failures = 0
    for file, names in sorted(names_by_file().items()):
        log = nvrtc_compile(source(Path(file).stem), file, names)
        print(f"{'FAIL' if log else 'ok  '} {file} {sorted(names)}")
        if log:
            failures += 1
            print(log)
    print(f"{failures} failed")
    return 1 if failures else 0


# ---------------------------------------------------------------- GPU run (CuPy)

_NP = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "bfloat16": np.uint16,
       "int32": np.int32, "uint32": np.uint32, "int64": np.int64, "uint8": np.uint8, "int8": np.int8}


def _close(out: np.ndarray, exp: np.ndarray, dtype: str, atol: float, rtol: float) -> tuple[bool, float]:
    from analyzer.profile.spec import bf16_to_f32
    if dtype == "bfloat16":
        o, e = bf16_to_f32(out).astype(np.float64), bf16_to_f32(exp).astype(np.float64)
    else:
        o, e = out.astype(np.float64), exp.astype(np.float64)
    bad = ~(np.abs(o - e) <= atol + rtol * np.abs(e))
    return (not bad.any()), float(np.nanmax(np.abs(o - e))) if o.size else 0.0


def run_gpu(selected: list[Sample], reps: int = 5) -> int:
    import cupy as cp

    modules: dict[str, object] = {}
    names = names_by_file()
    problems: dict[tuple, object] = {}
    failures = 0
    for s in selected:
        file = s.params["file"]
        if file not in modules:
            opts = ("-std=c++17",) + tuple(f"-I{d}" for d in _include_dirs())
            modules[file] = cp.RawModule(code=s.source, options=opts,
                                         name_expressions=sorted(names[file] | {s.kernel}))
        try:
            fn = modules[file].get_function(s.kernel)
        except Exception:  # an odd size may need a template instance the file does not have
            print(f"skip {s.family} {s.variant} {s.size}: {s.kernel} not instantiated")
            continue
        key = (s.problem, tuple(sorted(s.problem_kwargs.items())))
        if key not in problems:
            problems.clear()  # hold one size at a time
            t0 = time.perf_counter()
            problems[key] = build_problem(s)
            build_s = time.perf_counter() - t0
        else:
            build_s = 0.0
        prob = problems[key]
        bufs, launch_args = {}, []
        for a in s.args:
            if isinstance(a, Buffer):
                if a.role in ("in", "inout"):
                    arr = cp.asarray(prob.inputs[a.name])
                elif a.role == "zero":
                    arr = cp.zeros(a.size, dtype=_NP[a.dtype])
                else:
                    # poisoned like the profiler does: unwritten elements fail the check
                    arr = cp.full(a.size * np.dtype(_NP[a.dtype]).itemsize, 0xFF, dtype=cp.uint8).view(_NP[a.dtype])
                bufs[a.name] = (a, arr)
                launch_args.append(arr)
            else:
                launch_args.append(np.float32(a.value) if a.dtype == "float32" else np.int32(a.value))
        times = []
        ok, worst = True, 0.0
        try:
            for r in range(reps):
                for a, arr in bufs.values():  # reset between launches, as the profiler does
                    if a.role == "zero":
                        arr.fill(0)
                    elif a.role == "out":
                        arr.view(cp.uint8).fill(0xFF)
                start, stop = cp.cuda.Event(), cp.cuda.Event()
                start.record()
                fn(s.grid, s.block, tuple(launch_args), shared_mem=s.smem)
                stop.record()
                stop.synchronize()
                times.append(cp.cuda.get_elapsed_time(start, stop))
            for a, arr in bufs.values():
                if a.role in ("out", "inout", "zero"):
                    good, diff = _close(cp.asnumpy(arr), prob.expected[a.name], a.dtype, s.atol, s.rtol)
                    ok &= good
                    worst = max(worst, diff)
        except Exception as e:  # a launch failure poisons the context: stop here
            print(f"ERROR {s.family} {s.variant} {s.size}: {e}")
            return 1
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {s.family:18s} {s.variant:34s} {s.size:14s} "
              f"{np.median(times):9.4f} ms  maxdiff={worst:.3g}  build={build_s:.2f}s", flush=True)
    print(f"{failures} failed of {len(selected)}")
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m corpus.handwritten.check")
    ap.add_argument("what", choices=["nvrtc", "gpu"])
    ap.add_argument("--all", action="store_true", help="every size, not only the smallest")
    ap.add_argument("--odd", action="store_true", help="awkward sizes that exercise the bounds guards")
    ap.add_argument("--family", default=None)
    a = ap.parse_args(argv)
    if a.what == "nvrtc":
        return check_nvrtc()
    sel = [s for s in (odd_samples() if a.odd else samples()) if a.family in (None, s.family)]
    if not a.all and not a.odd:
        first = {}
        for s in sel:
            first.setdefault(s.family, s.size)
        sel = [s for s in sel if s.size == first[s.family]]
    # group by problem size so each reference is built once
    sel.sort(key=lambda s: (s.family, s.size))
    return run_gpu(sel)


if __name__ == "__main__":
    sys.exit(main())
