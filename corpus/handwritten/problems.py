"""Inputs and numpy references for the handwritten task groups.

One function per task group; every kernel of a group solves the same problem,
so they share its function and its kwargs (which include `seed`). Inputs are
flat arrays of exactly the kernels' Buffer dtypes; references are computed in
float64 and cast once. bfloat16 travels as np.uint16 bit patterns.
"""
from __future__ import annotations

import numpy as np

from analyzer.profile.spec import Problem, bf16_to_f32, f32_to_bf16

# Scalars the kernels receive as arguments (the spec passes the same values).
RMS_EPS = 1e-5
AXPY_A = 1.5            # exact in half precision, so a*x+y rounds once
PARTICLE_DT = 0.01
E_FIELD = (0.5, -0.25, 1.0)
GRAVITY = 9.81          # hard-coded in the particle kernels as 9.81f
STENCIL_WEIGHTS = (0.05, 0.1, 0.2, 0.3, 0.2, 0.1, 0.05)  # as float literals in the stencil kernels
GELU_K0 = 0.7978845608028654
GELU_K1 = 0.044715


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _uniform(rng: np.random.Generator, n: int, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    """float32 uniform in [lo, hi), generated in float32 to keep large sizes fast."""
    return rng.random(n, dtype=np.float32) * np.float32(hi - lo) + np.float32(lo)


def _f32(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float32).ravel()


# ---------------------------------------------------------------- fp32 rows


def rowsum(rows: int, cols: int, seed: int) -> Problem:
    x = _uniform(_rng(seed), rows * cols)
    y = x.reshape(rows, cols).sum(axis=1, dtype=np.float64)
    return Problem({"x": x}, {"y": _f32(y)})


def colsum(rows: int, cols: int, seed: int) -> Problem:
    x = _uniform(_rng(seed), rows * cols)
    y = x.reshape(rows, cols).sum(axis=0, dtype=np.float64)
    return Problem({"x": x}, {"y": _f32(y)})


def argmax(rows: int, cols: int, seed: int) -> Problem:
    x = _rng(seed).standard_normal(rows * cols, dtype=np.float32)
    idx = np.argmax(x.reshape(rows, cols), axis=1).astype(np.int32)  # first maximum
    return Problem({"x": x}, {"idx": idx})


def softmax(rows: int, cols: int, seed: int) -> Problem:
    x = _rng(seed).standard_normal(rows * cols, dtype=np.float32) * np.float32(2.0)
    y = np.empty(rows * cols, dtype=np.float32)
    # Row blocks bound the float64 temporaries at the largest size.
    step = max(1, (1 << 24) // cols)
    xr, yr = x.reshape(rows, cols), y.reshape(rows, cols)
    for r0 in range(0, rows, step):
        blk = xr[r0:r0 + step]
        # x - max is exact enough in float32 and numpy's float32 exp is SIMD and
        # within a few ulp; the normalising sum is float64.
        e = np.exp(blk - blk.max(axis=1, keepdims=True)).astype(np.float64)
        yr[r0:r0 + step] = e / e.sum(axis=1, keepdims=True)
    return Problem({"x": x}, {"y": y})


def gemv(rows: int, cols: int, seed: int) -> Problem:
    rng = _rng(seed)
    a = _uniform(rng, rows * cols)
    x = _uniform(rng, cols)
    y = a.reshape(rows, cols).astype(np.float64) @ x.astype(np.float64)
    return Problem({"A": a, "x": x}, {"y": _f32(y)})


# ---------------------------------------------------------------- fp32 vectors


def gelu(n: int, seed: int) -> Problem:
    x = _uniform(_rng(seed), n, -4.0, 4.0)
    # float32 on purpose: numpy's float32 tanh is SIMD and within a few ulp, so
    # the reference is good to ~1e-6 relative, 100x inside the tolerance, and
    # 10x faster than float64 at 64M elements.
    k0, k1, half = np.float32(GELU_K0), np.float32(GELU_K1), np.float32(0.5)
    y = np.empty_like(x)
    step = 1 << 22
    for i in range(0, n, step):
        v = x[i:i + step]
        y[i:i + step] = half * v * (np.float32(1.0) + np.tanh(k0 * (v + k1 * v * v * v)))
    return Problem({"x": x}, {"y": y})


def dot(n: int, seed: int) -> Problem:
    rng = _rng(seed)
    x = _uniform(rng, n)
    y = _uniform(rng, n)
    out = np.dot(x.astype(np.float64), y.astype(np.float64))
    return Problem({"x": x, "y": y}, {"out": np.array([out], dtype=np.float32)})


def stencil1d(n: int, seed: int) -> Problem:
    x = _uniform(_rng(seed), n)
    w = np.array(STENCIL_WEIGHTS, dtype=np.float32).astype(np.float64)
    y = x.copy()  # the RADIUS points at each end are copied through
    step = 1 << 20  # cache-sized chunks; 7 vectorised passes each
    for i0 in range(3, n - 3, step):
        i1 = min(i0 + step, n - 3)
        xd = x[i0 - 3:i1 + 3].astype(np.float64)
        acc = np.zeros(i1 - i0, dtype=np.float64)
        for k in range(7):  # y[i] = sum_k w[k] * x[i - 3 + k]
            acc += w[k] * xd[k:k + i1 - i0]
        y[i0:i1] = acc
    return Problem({"x": x}, {"y": y})


def histogram256(n: int, seed: int) -> Problem:
    data = _rng(seed).integers(0, 256, n, dtype=np.uint8)
    hist = np.bincount(data, minlength=256).astype(np.uint32)
    return Problem({"data": data}, {"hist": hist})


# ---------------------------------------------------------------- particles

_PARTICLE_FIELDS = ("x", "y", "z", "vx", "vy", "vz", "mass", "charge")


def _particle_fields(n: int, seed: int) -> dict[str, np.ndarray]:
    rng = _rng(seed)
    ranges = {"x": (-10, 10), "y": (-10, 10), "z": (-10, 10), "vx": (-1, 1), "vy": (-1, 1),
              "vz": (-1, 1), "mass": (0.5, 2.0), "charge": (-1, 1)}
    return {f: _uniform(rng, n, *ranges[f]) for f in _PARTICLE_FIELDS}


def _particle_step(p: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """One explicit-Euler step, in float64: v += dt*(q/m*E + g), x += dt*v."""
    dt = PARTICLE_DT
    qm = p["charge"].astype(np.float64) / p["mass"]
    vx = p["vx"] + dt * (qm * E_FIELD[0])
    vy = p["vy"] + dt * (qm * E_FIELD[1])
    vz = p["vz"] + dt * (qm * E_FIELD[2] - GRAVITY)
    return {"x": p["x"] + dt * vx, "y": p["y"] + dt * vy, "z": p["z"] + dt * vz,
            "vx": vx, "vy": vy, "vz": vz, "mass": p["mass"], "charge": p["charge"]}


def particles_aos(n: int, seed: int) -> Problem:
    p = _particle_fields(n, seed)
    q = _particle_step(p)
    p_in = np.stack([p[f] for f in _PARTICLE_FIELDS], axis=1)
    p_out = np.stack([q[f] for f in _PARTICLE_FIELDS], axis=1)
    return Problem({"p_in": _f32(p_in)}, {"p_out": _f32(p_out)})


def particles_soa(n: int, seed: int) -> Problem:
    p = _particle_fields(n, seed)
    q = _particle_step(p)
    soa_in = np.concatenate([p[f] for f in _PARTICLE_FIELDS])
    soa_out = np.concatenate([q[f] for f in _PARTICLE_FIELDS[:6]])
    return Problem({"soa_in": _f32(soa_in)}, {"soa_out": _f32(soa_out)})


# ---------------------------------------------------------------- half precision


def rmsnorm_half(rows: int, cols: int, seed: int) -> Problem:
    rng = _rng(seed)
    # x on the grid k/1024 (exact in half and float32) so the reference works
    # from float32 copies instead of numpy's slow half -> float conversions.
    x32 = rng.integers(-1024, 1025, rows * cols, dtype=np.int16).astype(np.float32) * np.float32(1.0 / 1024.0)
    w32 = _uniform(rng, cols, 0.5, 1.5).astype(np.float16).astype(np.float32)
    y = np.empty(rows * cols, dtype=np.float16)
    step = max(1, (1 << 24) // cols)
    xr, yr = x32.reshape(rows, cols), y.reshape(rows, cols)
    for r0 in range(0, rows, step):
        blk = xr[r0:r0 + step]
        ms = np.einsum("ij,ij->i", blk, blk, dtype=np.float64) / cols
        inv = (1.0 / np.sqrt(ms + RMS_EPS)).astype(np.float32)[:, None]
        # float32 products (~1e-7 relative) then one rounding to half (~5e-4)
        yr[r0:r0 + step] = (blk * inv * w32).astype(np.float16)
    return Problem({"x": x32.astype(np.float16), "w": w32.astype(np.float16)}, {"y": y})


def axpy_half(n: int, seed: int) -> Problem:
    rng = _rng(seed)
    # Inputs on the grid k/2048, |k| <= 2048: exact in half and float32, and
    # a*x + y is then exact in float32, so one rounding to half matches the
    # float64 reference while skipping numpy's slow half conversions.
    scale = np.float32(1.0 / 2048.0)
    x32 = rng.integers(-2048, 2049, n, dtype=np.int16).astype(np.float32) * scale
    y32 = rng.integers(-2048, 2049, n, dtype=np.int16).astype(np.float32) * scale
    out = (np.float32(AXPY_A) * x32 + y32).astype(np.float16)
    return Problem({"x": x32.astype(np.float16), "y": y32.astype(np.float16)}, {"out": out})


def hgemm(m: int, n: int, k: int, seed: int) -> Problem:
    """C = A B with half A [m, k] and B [k, n], float C: products of halves are exact in float32,
    and float32 BLAS sums them far inside the tolerance."""
    rng = _rng(seed)
    a = _uniform(rng, m * k).astype(np.float16)
    b = _uniform(rng, k * n).astype(np.float16)
    c = a.reshape(m, k).astype(np.float32) @ b.reshape(k, n).astype(np.float32)
    return Problem({"A": a, "B": b}, {"C": _f32(c)})


# ---------------------------------------------------------------- bfloat16


def bias_relu_bf16(rows: int, cols: int, seed: int) -> Problem:
    rng = _rng(seed)
    x = f32_to_bf16(_uniform(rng, rows * cols))
    bias = f32_to_bf16(_uniform(rng, cols, -0.5, 0.5))
    # float32 add then one bf16 rounding, as the kernels do
    v = bf16_to_f32(x).reshape(rows, cols) + bf16_to_f32(bias)
    y = f32_to_bf16(np.maximum(v, np.float32(0.0)).ravel())
    return Problem({"x": x, "bias": bias}, {"y": y})


def embedding_bf16(tokens: int, dim: int, vocab: int, seed: int) -> Problem:
    rng = _rng(seed)
    ids = rng.integers(0, vocab, tokens, dtype=np.int32)
    table = f32_to_bf16(_uniform(rng, vocab * dim))
    out = table.reshape(vocab, dim)[ids].ravel()
    return Problem({"ids": ids, "table": table}, {"out": out})


def swiglu_bf16(rows: int, d: int, seed: int) -> Problem:
    x = f32_to_bf16(_uniform(_rng(seed), rows * 2 * d, -3.0, 3.0))
    out = np.empty(rows * d, dtype=np.uint16)
    step = max(1, (1 << 22) // d)
    xr, outr = x.reshape(rows, 2 * d), out.reshape(rows, d)
    one = np.float32(1.0)
    for r0 in range(0, rows, step):
        g = bf16_to_f32(xr[r0:r0 + step, :d])
        u = bf16_to_f32(xr[r0:r0 + step, d:])
        # float32 with SIMD exp: a few ulp of float32, far below bf16 resolution
        outr[r0:r0 + step] = f32_to_bf16(g / (one + np.exp(-g)) * u)
    return Problem({"x": x}, {"out": out})
