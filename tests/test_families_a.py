"""Families elementwise, strided_copy, gather, transpose, reduction, matmul, softmax, layernorm.

Fast tests check the grid of samples (counts, ids, baselines, launches that
cover the problem), that problem() agrees with the Buffers, and each reference
against a naive computation on a tiny size. Slow tests compile the sources
(NVRTC, as the profiler does, and nvcc on a subset). The gpu test runs every
kernel on its smallest size with CuPy; `gpu_sweep()` runs every sample on the
device for a full check by hand.
"""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import numpy as np
import pytest

from corpus.families import Buffer, Sample, Scalar, families
from corpus.families import elementwise, gather, layernorm, matmul, reduction, softmax, strided_copy, transpose

MODULES = (elementwise, strided_copy, gather, transpose, reduction, matmul, softmax, layernorm)
NAMES = [m.NAME for m in MODULES]

STATIC_SMEM_LIMIT = 48 * 1024
REGS_PER_SM = 65536


@lru_cache(maxsize=None)
def _samples(name: str) -> tuple[Sample, ...]:
    return tuple(families()[name].samples())


def _all() -> list[Sample]:
    return [s for name in NAMES for s in _samples(name)]


def check(out: np.ndarray, expected: np.ndarray, atol: float, rtol: float) -> bool:
    """The profiler's acceptance rule."""
    out = np.asarray(out, dtype=np.float64)
    exp = np.asarray(expected, dtype=np.float64)
    return bool(np.all(np.abs(out - exp) <= atol + rtol * np.abs(exp)) and not np.isnan(out).any())


# ---------------------------------------------------------------- the sample grid

@pytest.mark.parametrize("module", MODULES, ids=NAMES)
def test_module_contract(module):
    assert module.NAME == module.__name__.rsplit(".", 1)[1]
    assert module.DESCRIPTION and "\n" not in module.DESCRIPTION
    samples = _samples(module.NAME)
    assert 150 <= len(samples) <= 300
    assert {s.family for s in samples} == {module.NAME}
    assert {s.problem for s in samples} == {f"corpus.families.{module.NAME}:problem"}
    assert module.BASELINE in {s.variant for s in samples}
    assert len({s.sample_id for s in samples}) == len(samples)
    assert len({s.size for s in samples}) >= 3


def test_total_sample_and_source_counts():
    samples = _all()
    assert 1600 <= len(samples) <= 2000
    assert len({s.source for s in samples}) <= 400


def test_samples_are_deterministic():
    first = [s.sample_id for s in elementwise.samples() + matmul.samples()]
    second = [s.sample_id for s in elementwise.samples() + matmul.samples()]
    assert first == second


@pytest.mark.parametrize("name", NAMES)
def test_tasks_share_problem_and_have_one_baseline(name):
    by_task: dict[str, list[Sample]] = defaultdict(list)
    for s in _samples(name):
        by_task[s.task_id].append(s)
    for task, group in by_task.items():
        assert sum(s.baseline for s in group) == 1, task
        assert len({s.variant for s in group}) == len(group), task
        first = group[0]
        for s in group[1:]:
            assert s.problem_kwargs == first.problem_kwargs, task
            assert s.args == first.args, task
            assert (s.bytes, s.flops, s.atol, s.rtol) == (first.bytes, first.flops, first.atol, first.rtol), task


def _scalars(s: Sample) -> dict[str, int | float]:
    return {a.name: a.value for a in s.args if isinstance(a, Scalar)}


def _coverage_errors(s: Sample) -> list[str]:
    """Does the launch reach every output element? (grid-stride kernels always do)."""
    p, v = s.params, _scalars(s)
    (gx, gy, _), (bx, by, _) = s.grid, s.block
    kind = p["kind"]
    errors = []

    def need(cond: bool, what: str) -> None:
        if not cond:
            errors.append(f"{s.family}/{s.variant}/{s.size}: {what}")

    template = re.search(r"<(\d+)>$", s.kernel)
    if template:
        need(int(template.group(1)) == bx, "template BLOCK differs from blockDim.x")
        need(f"template __global__ void {s.kernel}(" in s.source, "no explicit instantiation")
    if kind.startswith("grid_stride"):
        need(gx >= 1, "empty grid")
        return errors
    if s.family in ("elementwise", "strided_copy", "gather", "reduction"):
        need(gx * bx * p.get("per_thread", 1) >= v["n"], "1-D grid short of n")
    elif s.family == "transpose":
        rows, cols = v["rows"], v["cols"]
        if kind == "naive_row":
            need(gx * bx >= cols and gy * by >= rows, "naive_row grid short")
        elif kind == "naive_col":
            need(gx * bx >= rows and gy * by >= cols, "naive_col grid short")
        else:
            t = p["tile"]
            need(bx == t and t % by == 0, "tile block shape")
            need(gx * t >= cols and gy * t >= rows, "tile grid short")
            need(f"#define TILE {t}\n" in s.source and f"#define BLOCK_ROWS {by}\n" in s.source, "constants")
    elif s.family == "matmul":
        M, N = v["M"], v["N"]
        if kind == "uncoalesced":
            need(gx * bx >= M and gy * by >= N, "grid short")
        elif kind in ("naive", "tiled"):
            need(gx * bx >= N and gy * by >= M, "grid short")
        else:
            need(gx * p["bn"] >= N and gy * p["bm"] >= M, "grid short")
            per_thread = p["tm"] * p.get("tn", 1)
            need(bx * per_thread == p["bm"] * p["bn"], "threads x micro-tile != block tile")
    elif s.family in ("softmax", "layernorm"):
        rows = v["rows"]
        if "warps" in p:
            need(bx == 32 * p["warps"] and gx * p["warps"] >= rows, "warp-per-row grid short")
        else:
            need(gx == rows, "one block per row")
    return errors


@pytest.mark.parametrize("name", NAMES)
def test_launches_are_valid_and_cover_the_problem(name):
    errors = []
    for s in _samples(name):
        (gx, gy, gz), (bx, by, bz) = s.grid, s.block
        assert 32 <= s.threads_per_block <= 1024, s.variant
        assert s.threads_per_block % 32 == 0, s.variant
        assert bx <= 1024 and by <= 1024 and bz <= 64
        assert 1 <= gx < 2**31 and 1 <= gy <= 65535 and 1 <= gz <= 65535
        assert s.smem == 0   # all shared memory here is static (checked at compile time)
        assert s.bytes > 0 and s.atol >= 0 and s.rtol >= 0
        assert "#include" not in s.source
        assert 'extern "C"' in s.source or "<" in s.kernel
        kernel_name = s.kernel.split("<")[0]
        assert re.search(rf"\b{kernel_name}\s*\(", s.source), s.kernel
        errors += _coverage_errors(s)
    assert not errors, errors[:10]


def test_block_sizes_span_32_to_1024():
    for name in NAMES:
        threads = {s.threads_per_block for s in _samples(name)}
        assert min(threads) <= 64 and max(threads) >= 512, name


# ---------------------------------------------------------------- problems and references

def _smallest_per_kwargs_shape(name: str) -> list[Sample]:
    """One sample per distinct problem shape (pattern, vec, stride ...), at its smallest size."""
    best: dict[tuple, Sample] = {}
    for s in _samples(name):
        shape = tuple(sorted((k, v) for k, v in s.problem_kwargs.items()
                             if k in ("vec", "pattern", "stride")))
        size = sum(a.size for a in s.args if isinstance(a, Buffer))
        if shape not in best or size < sum(a.size for a in best[shape].args if isinstance(a, Buffer)):
            best[shape] = s
    return list(best.values())


@pytest.mark.parametrize("name", NAMES)
def test_problem_matches_buffers(name):
    picks = _smallest_per_kwargs_shape(name)
    if name == "strided_copy":   # 24 shapes: a few suffice
        picks = picks[::6]
    for s in picks:
        prob = families()[name].problem(**s.problem_kwargs)
        bufs = {a.name: a for a in s.args if isinstance(a, Buffer)}
        ins = {n for n, b in bufs.items() if b.role in ("in", "inout")}
        outs = {n for n, b in bufs.items() if b.role in ("out", "inout", "zero")}
        assert set(prob.inputs) == ins and set(prob.expected) == outs
        for key, arr in {**prob.inputs, **prob.expected}.items():
            assert arr.ndim == 1 and arr.dtype == np.dtype(bufs[key].dtype) and arr.size == bufs[key].size, key
            assert np.isfinite(arr).all() if arr.dtype.kind == "f" else True
        for arr in prob.inputs.values():
            assert np.count_nonzero(arr) > 0
        again = families()[name].problem(**s.problem_kwargs)
        for key in prob.expected:
            np.testing.assert_array_equal(prob.expected[key], again.expected[key])


def test_elementwise_reference():
    p = elementwise.problem(n=9, a=0.5, b=2.0, seed=3)
    x, y = p.inputs["x"], p.inputs["y"]
    want = [max(0.5 * float(x[i]) + 2.0 * math.sin(float(y[i])), 0.0) for i in range(9)]
    assert check(p.expected["out"], want, 1e-6, 1e-6)
    assert not check(np.roll(p.expected["out"], 1), want, 1e-5, 1e-5)


def test_strided_copy_reference():
    p = strided_copy.problem(n=5, stride=3, vec=2, seed=1)
    src = p.inputs["src"]
    assert src.size == 5 * 3 * 2
    want = [src[(i * 3) * 2 + j] for i in range(5) for j in range(2)]
    assert list(p.expected["dst"]) == want
    # the gaps never equal a copied value: a kernel that reads a wrong element fails
    gaps = np.delete(src.reshape(5, 3, 2), 0, axis=1).ravel()
    assert not np.isin(gaps, p.expected["dst"]).any()


@pytest.mark.parametrize("pattern", gather.PATTERNS)
def test_gather_reference(pattern):
    n = 8192
    p = gather.problem(n=n, vec=4, pattern=pattern, seed=2)
    src, idx = p.inputs["src"], p.inputs["idx"]
    assert idx.min() >= 0 and idx.max() < n
    out = p.expected["out"]
    for i in (0, 1, 777, n - 1):
        assert list(out[4 * i:4 * i + 4]) == list(src[4 * idx[i]:4 * idx[i] + 4])
    if pattern == "random" or pattern.startswith("local"):
        assert sorted(idx.tolist()) == list(range(n))
    if pattern == "sorted":
        assert (np.diff(idx) >= 0).all()
    if pattern.startswith("local"):
        w = int(pattern[5:])
        assert (idx // w == np.arange(n) // w).all()
        assert (idx != np.arange(n)).any()


def test_transpose_reference():
    p = transpose.problem(rows=3, cols=5, seed=0)
    a = p.inputs["in"]
    want = [a[r * 5 + c] for c in range(5) for r in range(3)]
    assert list(p.expected["out"]) == want


def test_reduction_reference_and_tolerance():
    n = 4096
    p = reduction.problem(n=n, seed=4)
    x = p.inputs["x"]
    total = math.fsum(float(v) for v in x)
    atol, rtol = reduction.tolerance(n)
    assert check(p.expected["out"], [total], atol, rtol)
    # a float32 serial sum (the worst order) passes; dropping one 32-element block fails
    assert check([np.cumsum(x, dtype=np.float32)[-1]], [total], atol, rtol)
    assert not check([x[32:].sum(dtype=np.float64)], [total], atol, rtol)


def test_matmul_reference_and_tolerance():
    M, N, K = 3, 4, 5
    p = matmul.problem(M=M, N=N, K=K, seed=0)
    a, b = p.inputs["A"], p.inputs["B"]
    want = [sum(float(a[i * K + k]) * float(b[k * N + j]) for k in range(K)) for i in range(M) for j in range(N)]
    atol, rtol = matmul.tolerance(K)
    assert check(p.expected["C"], want, atol, rtol)
    # B read transposed (a classic index bug) fails
    wrong = [sum(float(a[i * K + k]) * float(b[(j * K + k) % (K * N)]) for k in range(K))
             for i in range(M) for j in range(N)]
    assert not check(wrong, want, atol, rtol)


def test_matmul_tolerance_covers_float32_accumulation():
    K = 2048
    rng = np.random.default_rng(0)
    a = rng.uniform(-1, 1, (64, K)).astype(np.float32)
    b = rng.uniform(-1, 1, (K, 64)).astype(np.float32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    serial = np.zeros((64, 64), dtype=np.float32)
    for k in range(K):   # one float32 rounding per step, the naive kernel's order
        serial += a[:, k:k + 1] * b[k:k + 1, :]
    assert check(serial, exact, *matmul.tolerance(K))


def test_softmax_reference():
    rows, cols = 3, 7
    p = softmax.problem(rows=rows, cols=cols, seed=0)
    x = p.inputs["x"]
    want = []
    for r in range(rows):
        row = [float(v) for v in x[r * cols:(r + 1) * cols]]
        e = [math.exp(v - max(row)) for v in row]
        want += [v / sum(e) for v in e]
    assert check(p.expected["y"], want, 1e-8, 1e-6)
    assert not check(np.roll(p.expected["y"], 1), want, 1e-8, 1e-4)


def test_layernorm_reference():
    rows, cols, eps = 3, 8, 1e-5
    p = layernorm.problem(rows=rows, cols=cols, eps=eps, seed=0)
    x, g, b = p.inputs["x"], p.inputs["gamma"], p.inputs["beta"]
    assert g.size == cols and b.size == cols
    want = []
    for r in range(rows):
        row = [float(v) for v in x[r * cols:(r + 1) * cols]]
        mean = sum(row) / cols
        var = sum((v - mean) ** 2 for v in row) / cols
        want += [(v - mean) / math.sqrt(var + eps) * float(g[c]) + float(b[c]) for c, v in enumerate(row)]
    assert check(p.expected["y"], want, 1e-5, 1e-5)
    # the same rows normalised without gamma/beta must fail
    assert not check(p.expected["y"], np.asarray(want) - np.tile(b, rows), 1e-4, 1e-4)


# ---------------------------------------------------------------- compilation

def _distinct_sources(samples: list[Sample]) -> dict[tuple[str, str], Sample]:
    out: dict[tuple[str, str], Sample] = {}
    for s in samples:
        out.setdefault((s.source_hash, s.kernel), s)
    return out


def nvrtc_compile(source: str, kernel: str, arch: str = "sm_90") -> tuple[bool, str]:
    """Compile like the profiler (NVRTC, name expression for templates); (ok, log incl. ptxas -v)."""
    from cuda.bindings import nvrtc

    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), b"sample.cu", 0, [], [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    try:
        if "<" in kernel:
            nvrtc.nvrtcAddNameExpression(prog, kernel.encode())
        opts = [f"--gpu-architecture={arch}".encode(), b"--ptxas-options=-v"]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        return err == nvrtc.nvrtcResult.NVRTC_SUCCESS, log.decode(errors="replace")
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def resource_errors(s: Sample, log: str, threads: int) -> list[str]:
    """From a ptxas -v log: static shared memory, spills, and registers x threads that fit one SM."""
    errors = []
    regs = [int(r) for r in re.findall(r"Used (\d+) registers", log)]
    smem = [int(b) for b in re.findall(r"(\d+) bytes smem", log)]
    spills = [int(b) for b in re.findall(r"(\d+) bytes spill stores", log)]
    if not regs:
        return [f"{s.family}/{s.variant}: no ptxas report"]
    if max(smem, default=0) > STATIC_SMEM_LIMIT:
        errors.append(f"{s.family}/{s.variant}: {max(smem)} bytes of static shared memory")
    if max(regs) * threads > REGS_PER_SM:
        errors.append(f"{s.family}/{s.variant}: {max(regs)} registers x {threads} threads")
    if max(spills, default=0) > 0:
        errors.append(f"{s.family}/{s.variant}: spills {max(spills)} bytes")
    return errors


def _has_nvrtc() -> bool:
    try:
        from cuda.bindings import nvrtc  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(not _has_nvrtc(), reason="cuda-bindings (NVRTC) not installed")
def test_every_source_compiles_with_nvrtc_within_resources():
    """Every distinct source once (~200, ~0.1 s each), with the launch's thread count."""
    errors = []
    launches = defaultdict(int)
    for s in _all():   # the largest block each source is launched with
        key = (s.source_hash, s.kernel)
        launches[key] = max(launches[key], s.threads_per_block)
    srcs = _distinct_sources(_all())

    def one(item):
        key, s = item
        ok, log = nvrtc_compile(s.source, s.kernel)
        if not ok:
            return [f"{s.family}/{s.variant}: {log[:500]}"]
        return resource_errors(s, log, launches[key])

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for errs in pool.map(one, srcs.items()):
            errors += errs
    assert not errors, errors[:10]


def _one_per_kind() -> list[Sample]:
    """One source per (family, kind), the one with the most threads (to test the register budget)."""
    best: dict[tuple[str, str], Sample] = {}
    for s in _all():
        key = (s.family, s.params["kind"])
        if key not in best or s.threads_per_block > best[key].threads_per_block:
            best[key] = s
    return list(best.values())


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")
def test_one_source_per_kind_compiles_with_nvcc():
    picks = _one_per_kind()
    assert 15 <= len(picks) <= 45

    def one(s: Sample) -> list[str]:
        if "<" in s.kernel:   # nvcc: the explicit instantiation is what emits the kernel
            assert f"template __global__ void {s.kernel}(" in s.source
        proc = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-Xptxas", "-v", "-o", "/dev/null", "-x", "cu", "-"],
                              input=s.source, capture_output=True, text=True, timeout=120)
        if proc.returncode:
            return [f"{s.family}/{s.variant}: {proc.stderr[:500]}"]
        return resource_errors(s, proc.stderr, s.threads_per_block)

    errors = []
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for errs in pool.map(one, picks):
            errors += errs
    assert not errors, errors


# ---------------------------------------------------------------- on a GPU (CuPy)

def _gpu_available() -> bool:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def upload(prob) -> tuple[dict, dict]:
    """A problem's inputs and expected outputs as CuPy arrays (once per task)."""
    import cupy as cp

    return ({k: cp.asarray(v) for k, v in prob.inputs.items()},
            {k: cp.asarray(v) for k, v in prob.expected.items()})


def run_on_gpu(s: Sample, inputs: dict, expected: dict, modules: dict, reps: int = 3) -> dict:
    """Launch one sample with CuPy as the profiler does (outputs poisoned with NaN), check it on
    the device, and time it with events (median of `reps`, warm L2)."""
    import cupy as cp

    key = (s.source_hash, s.kernel)
    if key not in modules:
        from analyzer.profile.toolkit import cuda_include_dir

        names = (s.kernel,) if "<" in s.kernel else ()
        # the toolkit's own headers (mma.h's crt/ part is not in every pip-installed include folder)
        folder = cuda_include_dir() if "#include" in s.source else None
        inc = ("--include-path=" + folder,) if folder else ()
        modules[key] = cp.RawModule(code=s.source, options=("--std=c++17", *inc), name_expressions=names)
    fn = modules[key].get_function(s.kernel)
    args, outs, zeros = [], {}, []
    for a in s.args:
        if isinstance(a, Scalar):
            args.append(np.int32(a.value) if a.dtype == "int32" else np.float32(a.value))
        elif a.role == "in":
            args.append(inputs[a.name])
        else:
            buf = cp.zeros(a.size, dtype=a.dtype) if a.role == "zero" else cp.full(a.size, np.nan, dtype=a.dtype)
            outs[a.name] = buf
            if a.role == "zero":
                zeros.append(buf)
            args.append(buf)
    fn(s.grid, s.block, tuple(args), shared_mem=s.smem)
    cp.cuda.runtime.deviceSynchronize()
    ok, worst = True, 0.0
    for k, out in outs.items():
        exp = expected[k].astype(cp.float64)
        diff = cp.abs(out.astype(cp.float64) - exp)
        ok &= bool(cp.all(diff <= s.atol + s.rtol * cp.abs(exp))) and not bool(cp.isnan(out).any())
        worst = max(worst, float(cp.nanmax(diff)) if not bool(cp.isnan(diff).all()) else float("nan"))
        del exp, diff
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(reps):
        for buf in zeros:   # atomics accumulate: start from zero each time
            buf.fill(0)
        start.record()
        fn(s.grid, s.block, tuple(args), shared_mem=s.smem)
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return {"family": s.family, "variant": s.variant, "size": s.size, "ok": ok, "max_abs_err": worst,
            "ms": float(np.median(times)) if times else None}


@pytest.mark.gpu
@pytest.mark.skipif(not _gpu_available(), reason="needs an NVIDIA GPU and CuPy")
@pytest.mark.parametrize("name", NAMES)
def test_every_variant_is_correct_on_its_smallest_size(name):
    by_task: dict[str, list[Sample]] = defaultdict(list)
    for s in _samples(name):
        by_task[s.task_id].append(s)
    smallest: dict[tuple, list[Sample]] = {}
    for group in by_task.values():
        shape = tuple(sorted((k, v) for k, v in group[0].problem_kwargs.items() if k in ("vec", "pattern")))
        cost = sum(a.size for a in group[0].args if isinstance(a, Buffer))
        if shape not in smallest or cost < sum(a.size for a in smallest[shape][0].args if isinstance(a, Buffer)):
            smallest[shape] = group
    modules: dict = {}
    failures = []
    for group in smallest.values():
        inputs, expected = upload(families()[name].problem(**group[0].problem_kwargs))
        for s in group:
            r = run_on_gpu(s, inputs, expected, modules, reps=0)
            if not r["ok"]:
                failures.append(r)
    assert not failures, failures[:10]


def gpu_sweep(path: str, names: tuple[str, ...] = tuple(NAMES), reps: int = 3) -> None:
    """Every sample of these families on the GPU, one JSON line each (run by hand on the device)."""
    import cupy as cp

    modules: dict = {}
    with open(path, "a") as f:
        for name in names:
            by_task: dict[str, list[Sample]] = defaultdict(list)
            for s in _samples(name):
                by_task[s.task_id].append(s)
            for group in by_task.values():
                t0 = time.time()
                prob = families()[name].problem(**group[0].problem_kwargs)
                build_s = time.time() - t0
                inputs, expected = upload(prob)
                del prob
                for s in group:
                    try:
                        r = run_on_gpu(s, inputs, expected, modules, reps=reps)
                    except Exception as exc:   # a compile or launch error is a result too
                        r = {"family": s.family, "variant": s.variant, "size": s.size, "ok": False,
                             "error": str(exc)[:800]}
                    r["build_s"] = round(build_s, 3)
                    f.write(json.dumps(r) + "\n")
                f.flush()
                del inputs, expected
                cp.get_default_memory_pool().free_all_blocks()
