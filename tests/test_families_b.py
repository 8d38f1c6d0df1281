"""Families stencil1d, stencil2d, histogram, scan, conv2d, bank_sweep, matvec, maxpool2d.

Fast tests: the module contract, launch sanity, grid coverage, problem/buffer
agreement and the numpy references against naive Python at tiny sizes, plus
checks that the tolerances admit float32 results in another summation order and
reject an off-by-one. The slow test compiles one source per (family, kind).
"""
from __future__ import annotations

import importlib
import re
import shutil
import subprocess
from collections import Counter

import numpy as np
import pytest

from corpus.families.base import Buffer, Sample, Scalar

FAMILIES = ("stencil1d", "stencil2d", "histogram", "scan", "conv2d", "bank_sweep", "matvec", "maxpool2d")

# Tiny tasks per family (task_samples kwargs): odd sizes so bounds guards matter.
TINY = {
    "stencil1d": [dict(n=1003, radius=r) for r in (1, 8)],
    "stencil2d": [dict(h=13, w=21, stencil=s) for s in ("star5", "star9", "box9")],
    "histogram": [dict(n=5003, bins=256, dist="uniform"), dict(n=5003, bins=1024, dist="skewed")],
    "scan": [dict(n=256 * 3 + 37, seg=256, dtype="float32"), dict(n=2048 * 2 + 5, seg=2048, dtype="int32")],
    "conv2d": [dict(N=2, C=3, K=32, H=11, W=13, KS=3), dict(N=1, C=16, K=16, H=9, W=7, KS=5)],
    "bank_sweep": [dict(n=3000, dtype="float32"), dict(n=3000, dtype="float64")],
    "matvec": [dict(rows=37, cols=44, layout="row"), dict(rows=37, cols=45, layout="row"),
               dict(rows=37, cols=44, layout="col")],
    "maxpool2d": [dict(N=2, C=3, H=11, W=13, K=2), dict(N=1, C=2, H=12, W=9, K=3)],
}


def module(name: str):
    return importlib.import_module(f"corpus.families.{name}")


_SAMPLES: dict[str, list[Sample]] = {}


def all_samples(name: str) -> list[Sample]:
    if name not in _SAMPLES:
        _SAMPLES[name] = module(name).samples()
    return _SAMPLES[name]


def buffers(s: Sample) -> dict[str, Buffer]:
    return {a.name: a for a in s.args if isinstance(a, Buffer)}


def scalars(s: Sample) -> dict[str, int | float]:
    return {a.name: a.value for a in s.args if isinstance(a, Scalar)}


# ---- contract ---------------------------------------------------------------

@pytest.mark.parametrize("name", FAMILIES)
def test_module_contract(name):
    m = module(name)
    assert m.NAME == name
    assert m.DESCRIPTION and "\n" not in m.DESCRIPTION
    samples = all_samples(name)
    assert 120 <= len(samples) <= 320
    assert len({s.sample_id for s in samples}) == len(samples)
    assert all(s.family == name and s.problem == f"corpus.families.{name}:problem" for s in samples)
    tasks: dict[str, list[Sample]] = {}
    for s in samples:
        tasks.setdefault(s.task_id, []).append(s)
    assert len(tasks) >= 3
    for task, group in tasks.items():
        # every task has exactly one baseline sample, and one problem for all its variants
        assert sum(s.baseline for s in group) == 1, task
        assert [s.variant for s in group if s.baseline] == [m.BASELINE]
        assert len({tuple(sorted(s.problem_kwargs.items())) for s in group}) == 1, task
        assert len({s.variant for s in group}) == len(group), task
        assert len({(s.bytes, s.flops) for s in group}) == 1, task


@pytest.mark.parametrize("name", FAMILIES)
def test_launch_sanity(name):
    for s in all_samples(name):
        assert 32 <= s.threads_per_block <= 1024, s.variant
        assert s.block[2] == 1 and s.grid[0] >= 1
        assert s.grid[1] <= 65535 and s.grid[2] <= 65535
        assert s.smem == 0
        assert s.bytes > 0 and s.atol >= 0 and s.rtol >= 0
        assert "kind" in s.params
        assert "#include" not in s.source and "$" not in s.source
        assert re.search(rf'extern "C" __global__ void(?: __launch_bounds__\([^)]*\))?\s+{s.kernel}\(', s.source), \
            (s.variant, s.kernel)
        for a in s.args:
            if isinstance(a, Scalar):   # a size; 0 only as bank_sweep's `wide` mask (z)
                assert a.dtype == "int32" and (0 < a.value < 2**31 or (a.name, a.value) == ("z", 0))


def _covers(s: Sample) -> bool:
    """Does the grid reach every output the task has? (family-specific thread mappings)"""
    p, g, b, sc = s.params, s.grid, s.block, scalars(s)
    kind = p["kind"]
    if s.family == "stencil1d":
        return g[0] * b[0] >= sc["n"]
    if s.family == "stencil2d":
        if kind == "global_rowwalk":
            return g[0] * b[0] >= sc["h"] and g[1] * b[1] >= sc["w"]
        return g[0] * b[0] >= sc["w"] and g[1] * b[1] >= sc["h"]
    if s.family == "histogram":
        return kind == "shared_gridstride" or g[0] * b[0] * p["items"] >= sc["n"]
    if s.family == "scan":
        return g[0] * p["seg"] >= sc["n"] and b[0] * p["items"] == p["seg"]
    if s.family == "conv2d":
        return g[0] * b[0] >= sc["W"] and g[1] * b[1] >= sc["H"] and g[2] == sc["N"] * sc["K"]
    if s.family == "bank_sweep":
        return g[0] * (b[0] * b[1] if kind == "stride" else 1024) >= sc["n"]
    if s.family == "matvec":
        if kind.startswith("warp_row"):
            return g[0] * (b[0] // 32) >= sc["rows"]
        if kind.startswith("block_row"):
            return g[0] == sc["rows"]
        return g[0] * b[0] >= sc["rows"]
    if s.family == "maxpool2d":
        if kind == "thread_1d":
            return g[0] * b[0] >= sc["N"] * sc["C"] * sc["Ho"] * sc["Wo"]
        if kind == "grid_stride":
            return True
        ox, oy = (0, 1) if kind == "thread_2d" else (1, 0)
        return g[ox] * b[ox] >= sc["Wo"] and g[oy] * b[oy] >= sc["Ho"] and g[2] == sc["N"] * sc["C"]
    raise AssertionError(s.family)


@pytest.mark.parametrize("name", FAMILIES)
def test_grid_covers_problem(name):
    samples = all_samples(name)
    for kw in TINY[name]:
        samples = samples + module(name).task_samples(**kw)
    bad = [(s.variant, s.size) for s in samples if not _covers(s)]
    assert not bad


@pytest.mark.parametrize("name", FAMILIES)
def test_problem_matches_buffers(name):
    m = module(name)
    for kw in TINY[name]:
        group = m.task_samples(**kw)
        prob = m.problem(**group[0].problem_kwargs)
        for s in group:
            for buf in buffers(s).values():
                want = np.dtype(buf.dtype)
                if buf.role in ("in", "inout"):
                    arr = prob.inputs[buf.name]
                    assert arr.dtype == want and arr.shape == (buf.size,), (s.variant, buf)
                    assert np.any(arr != 0)
                if buf.role in ("out", "inout", "zero"):
                    arr = prob.expected[buf.name]
                    assert arr.dtype == want and arr.shape == (buf.size,), (s.variant, buf)
                    assert np.all(np.isfinite(arr))
        again = m.problem(**group[0].problem_kwargs)
        for k, v in prob.expected.items():
            assert np.array_equal(v, again.expected[k])


# ---- references against naive Python ----------------------------------------

def test_stencil1d_reference():
    m = module("stencil1d")
    for r in (1, 3, 8):
        prob = m.problem(n=40, radius=r)
        x, w = prob.inputs["x"].tolist(), prob.inputs["w"].tolist()
        want = [sum(w[k + r] * x[i + k] for k in range(-r, r + 1) if 0 <= i + k < 40) for i in range(40)]
        np.testing.assert_allclose(prob.expected["y"], want, rtol=1e-6, atol=1e-7)
        assert abs(sum(w) - 1) < 1e-6


def test_stencil2d_reference():
    m = module("stencil2d")
    h, w = 6, 7
    for stencil, (radius, taps) in m.STENCILS.items():
        prob = m.problem(h=h, w=w, stencil=stencil)
        x = prob.inputs["x"].reshape(h, w).tolist()
        want = np.zeros((h, w))
        for i in range(h):
            for j in range(w):
                want[i, j] = sum(float(np.float32(c)) * x[i + dy][j + dx] for dy, dx, c in taps
                                 if 0 <= i + dy < h and 0 <= j + dx < w)
        np.testing.assert_allclose(prob.expected["y"].reshape(h, w), want, rtol=1e-6, atol=1e-7)
        assert max(max(abs(dy), abs(dx)) for dy, dx, _ in taps) == radius
        assert abs(sum(c for _, _, c in taps) - 1) < 1e-6


def test_stencil2d_source_coefficients():
    m = module("stencil2d")
    for stencil, (_, taps) in m.STENCILS.items():
        src, _ = m.source("shared", stencil, 16, 16)
        found = sorted(np.float32(v) for v in re.findall(r"acc \+= ([0-9.]+)f \*", src))
        assert found == sorted(np.float32(c) for _, _, c in taps)


def test_histogram_reference():
    m = module("histogram")
    for dist in ("uniform", "skewed"):
        prob = m.problem(n=20000, bins=1024, dist=dist)
        data = prob.inputs["data"]
        assert data.min() >= 0 and data.max() < 1024
        got = prob.expected["counts"]
        want = Counter(data.tolist())
        assert all(got[b] == want.get(b, 0) for b in range(1024))
        top8 = np.sort(got)[-8:].sum() / got.sum()
        assert (top8 > 0.85) == (dist == "skewed")


def test_scan_reference():
    m = module("scan")
    for dtype in ("float32", "int32"):
        seg, n = 256, 256 * 2 + 10
        prob = m.problem(n=n, seg=seg, dtype=dtype)
        x = prob.inputs["x"].astype(np.float64).tolist()
        want, run = [], 0.0
        for i, v in enumerate(x):
            run = v if i % seg == 0 else run + v
            want.append(run)
        np.testing.assert_allclose(prob.expected["y"], want, rtol=1e-6, atol=1e-5)
        assert prob.expected["y"].dtype == np.dtype(dtype)


def test_conv2d_reference():
    m = module("conv2d")
    for ks in (3, 5):
        n_, c, k, h, w = 1, 2, 3, 6, 7
        prob = m.problem(N=n_, C=c, K=k, H=h, W=w, KS=ks)
        x = prob.inputs["x"].reshape(n_, c, h, w)
        wt = prob.inputs["w"].reshape(k, c, ks, ks)
        p = ks // 2
        want = np.zeros((n_, k, h, w))
        for kk in range(k):
            for oy in range(h):
                for ox in range(w):
                    acc = 0.0
                    for cc in range(c):
                        for ky in range(ks):
                            for kx in range(ks):
                                iy, ix = oy + ky - p, ox + kx - p
                                if 0 <= iy < h and 0 <= ix < w:
                                    acc += float(x[0, cc, iy, ix]) * float(wt[kk, cc, ky, kx])
                    want[0, kk, oy, ox] = acc
        np.testing.assert_allclose(prob.expected["y"].reshape(want.shape), want, rtol=1e-6, atol=1e-7)


def test_conv2d_constant_weights_match_problem():
    m = module("conv2d")
    for c, k, ks in {(c, k, ks) for _, c, k, _, _, ks in m.CONFIGS}:
        src, _ = m.source("naive_const", c, k, ks, 16, 16)
        body = src[src.index("c_w[KOUT * CIN * KS * KS] = {"):]
        body = body[body.index("{") + 1:body.index("};")]
        baked = np.array([float(v) for v in re.findall(r"(-?[0-9.]+)f", body)], dtype=np.float32)
        assert np.array_equal(baked, m.weights(c, k, ks))
        assert baked.nbytes <= 64 * 1024 and np.any(baked != 0)


def test_bank_sweep_reference():
    m = module("bank_sweep")
    for dtype in ("float32", "float64"):
        prob = m.problem(n=4096, dtype=dtype)
        x = prob.inputs["x"]
        assert np.array_equal(x, np.round(x)) and np.abs(x).max() <= m.VALUE_RANGE
        assert [float(v) * m.ITERS for v in x[:50]] == prob.expected["y"][:50].tolist()
    # the conflict degrees the sweep is meant to span, for 4-byte elements: gcd(stride, 32)
    strides = {s.params["stride"] for s in all_samples("bank_sweep") if s.params["kind"] == "stride"}
    assert {np.gcd(s, 32) for s in strides} == {1, 2, 4, 8, 16, 32}


def test_matvec_reference():
    m = module("matvec")
    rows, cols = 9, 12
    row = m.problem(rows=rows, cols=cols, layout="row")
    col = m.problem(rows=rows, cols=cols, layout="col")
    for prob, at in ((row, lambda r, c: row.inputs["A"][r * cols + c]),
                     (col, lambda r, c: col.inputs["At"][c * rows + r])):
        x = prob.inputs["x"]
        want = [sum(float(at(r, c)) * float(x[c]) for c in range(cols)) for r in range(rows)]
        np.testing.assert_allclose(prob.expected["y"], want, rtol=1e-6, atol=1e-6)


def test_maxpool2d_reference():
    m = module("maxpool2d")
    for k in (2, 3):
        n_, c, h, w = 1, 2, 9, 8
        prob = m.problem(N=n_, C=c, H=h, W=w, K=k)
        x = prob.inputs["x"].reshape(n_ * c, h, w)
        ho, wo = m.out_dims(h, w, k)
        want = [max(x[p, 2 * oy + ky, 2 * ox + kx] for ky in range(k) for kx in range(k))
                for p in range(n_ * c) for oy in range(ho) for ox in range(wo)]
        assert prob.expected["y"].tolist() == [float(v) for v in want]
        assert 2 * (ho - 1) + k <= h and 2 * ho + k > h   # every full window, no partial one


# ---- tolerances: a legitimate float32 order passes, an off-by-one fails -------

def _passes(got: np.ndarray, want: np.ndarray, atol: float, rtol: float) -> bool:
    g, w = got.astype(np.float64), want.astype(np.float64)
    return bool(np.all(np.abs(g - w) <= atol + rtol * np.abs(w)))


def test_scan_tolerance():
    m = module("scan")
    seg = 2048
    prob = m.problem(n=seg * 8, seg=seg, dtype="float32")
    atol, rtol = m.tolerance("float32", seg)
    x, want = prob.inputs["x"].reshape(-1, seg), prob.expected["y"]
    sequential = np.cumsum(x, axis=1, dtype=np.float32).reshape(-1)       # float32, left to right
    assert _passes(sequential, want, atol, rtol)
    shifted = np.concatenate([[0], want[:-1]]).astype(np.float32)         # off by one element
    assert not _passes(shifted, want, atol, rtol)


def test_matvec_tolerance():
    m = module("matvec")
    rows, cols = 64, 16384
    prob = m.problem(rows=rows, cols=cols, layout="row")
    s = m.task_samples(rows, cols, "row")[0]
    a, x = prob.inputs["A"].reshape(rows, cols), prob.inputs["x"]
    acc = np.zeros(rows, dtype=np.float32)
    for c in range(cols):                       # one thread per row, left to right in float32
        acc += a[:, c] * x[c]
    assert _passes(acc, prob.expected["y"], s.atol, s.rtol)
    assert not _passes(acc - a[:, 0] * x[0] + a[:, 1] * x[0], prob.expected["y"], s.atol, s.rtol)


def test_conv2d_tolerance():
    m = module("conv2d")
    n_, c, k, h, w, ks = 1, 32, 32, 12, 12, 3
    prob = m.problem(N=n_, C=c, K=k, H=h, W=w, KS=ks)
    s = m.task_samples(n_, c, k, h, w, ks)[0]
    x = np.pad(prob.inputs["x"].reshape(c, h, w), ((0, 0), (1, 1), (1, 1)))
    wt = prob.inputs["w"].reshape(k, c, ks, ks)
    acc = np.zeros((k, h, w), dtype=np.float32)
    for cc in range(c):                         # the naive kernel's order, in float32
        for ky in range(ks):
            for kx in range(ks):
                acc += wt[:, cc, ky, kx][:, None, None] * x[cc, ky:ky + h, kx:kx + w][None]
    want = prob.expected["y"]
    assert _passes(acc.reshape(-1), want, s.atol, s.rtol)
    shifted = np.roll(want.reshape(k, h, w), 1, axis=2).reshape(-1)
    assert not _passes(shifted, want, s.atol, s.rtol)


def test_stencil_tolerance():
    m = module("stencil1d")
    prob = m.problem(n=5000, radius=8)
    s = m.task_samples(5000, 8)[0]
    x, w = np.pad(prob.inputs["x"], 8), prob.inputs["w"]
    acc = np.zeros(5000, dtype=np.float32)
    for k in range(17):
        acc += w[k] * x[k:k + 5000]
    want = prob.expected["y"]
    assert _passes(acc, want, s.atol, s.rtol)
    assert not _passes(np.roll(want, 1), want, s.atol, s.rtol)


# ---- compile -------------------------------------------------------------------

def _one_per_kind() -> list[Sample]:
    """The last sample of each (family, kind, layout): the largest shared arrays come last."""
    picked: dict[tuple, Sample] = {}
    for name in FAMILIES:
        for s in all_samples(name):
            picked[(name, s.params["kind"], s.params.get("layout"), s.params.get("dtype"))] = s
    return list(picked.values())


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("sample", _one_per_kind(), ids=lambda s: f"{s.family}-{s.variant}")
def test_source_compiles(sample):
    proc = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-Xptxas", "-v", "-o", "/dev/null", "-x", "cu", "-"],
                          input=sample.source, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Used" in proc.stderr   # ptxas reported on the kernel
    smem = [int(v) for v in re.findall(r"(\d+) bytes smem", proc.stderr)]   # absent when zero
    assert max(smem, default=0) <= 48 * 1024
