"""1-D weighted stencil: y[i] = sum_{k=-R..R} w[k+R] * x[i+k], zero outside [0, n).

Variants: every neighbour read from global memory (plain pointers, or const
__restrict__ + __ldg through the read-only path), and a shared-memory tile of
BLOCK + 2R elements with its halo loaded once per block. Radius 1..8 and block
sizes 32..1024; the radius is part of the task (it changes the answer).
"""
from __future__ import annotations

import numpy as np

from ._render import chunks, count_label, make_sample, render, uniform
from .base import Buffer, Problem, Sample, Scalar, cdiv

NAME = "stencil1d"
BASELINE = "global_b256"
DESCRIPTION = "1-D weighted stencil of radius 1..8: global neighbour reads vs shared tile with halo, block size"

SIZES = (2 << 20, 16 << 20, 64 << 20)   # 16 MB (L2) .. 512 MB of traffic
RADII = (1, 2, 4, 8)
BLOCKS = (32, 64, 128, 256, 512, 1024)
KINDS = ("global", "global_ldg", "shared")
SEED = 11

_GLOBAL = """
    #define RADIUS $R
    #define BLOCK $B
    // Every thread reads its 2*RADIUS+1 neighbours straight from global memory.
    extern "C" __global__ void __launch_bounds__(BLOCK)
    stencil1d_global(const float* x, const float* w, float* y, int n)
    {
        int i = blockIdx.x * BLOCK + threadIdx.x;
        if (i >= n) return;
        float acc = 0.0f;
    #pragma unroll
        for (int k = -RADIUS; k <= RADIUS; ++k) {
            int j = i + k;
            if (j >= 0 && j < n) acc += w[k + RADIUS] * x[j];
        }
        y[i] = acc;
    }
"""

_GLOBAL_LDG = """
    #define RADIUS $R
    #define BLOCK $B
    // Same reads as the global variant, through the read-only data path.
    extern "C" __global__ void __launch_bounds__(BLOCK)
    stencil1d_global_ldg(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int n)
    {
        int i = blockIdx.x * BLOCK + threadIdx.x;
        if (i >= n) return;
        float acc = 0.0f;
    #pragma unroll
        for (int k = -RADIUS; k <= RADIUS; ++k) {
            int j = i + k;
            if (j >= 0 && j < n) acc += __ldg(&w[k + RADIUS]) * __ldg(&x[j]);
        }
        y[i] = acc;
    }
"""

_SHARED = """
    #define RADIUS $R
    #define BLOCK $B
    #define TILE (BLOCK + 2 * RADIUS)
    // The block's BLOCK inputs plus a RADIUS halo on each side are staged in shared
    // memory once; each output then reads its neighbours from the tile.
    extern "C" __global__ void __launch_bounds__(BLOCK)
    stencil1d_shared(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int n)
    {
        __shared__ float tile[TILE];
        int start = blockIdx.x * BLOCK - RADIUS;   // global index of tile[0]
        for (int t = threadIdx.x; t < TILE; t += BLOCK) {
            int j = start + t;
            tile[t] = (j >= 0 && j < n) ? x[j] : 0.0f;
        }
        __syncthreads();
        int i = blockIdx.x * BLOCK + threadIdx.x;
        if (i >= n) return;
        float acc = 0.0f;
    #pragma unroll
        for (int k = 0; k <= 2 * RADIUS; ++k) acc += w[k] * tile[threadIdx.x + k];
        y[i] = acc;
    }
"""

_TEMPLATES = {"global": _GLOBAL, "global_ldg": _GLOBAL_LDG, "shared": _SHARED}


def weights(radius: int, rng: np.random.Generator) -> np.ndarray:
    """2R+1 positive weights summing to 1, so |y| <= max|x| and errors stay O(eps)."""
    w = rng.uniform(0.1, 1.0, 2 * radius + 1)
    return (w / w.sum()).astype(np.float32)


def reference(x: np.ndarray, w: np.ndarray, radius: int) -> np.ndarray:
    """The stencil in float64 with zero padding, cast to float32."""
    n = x.size
    w64 = w.astype(np.float64)
    y = np.empty(n, dtype=np.float32)
    for lo, hi in chunks(n, 1 << 18):
        a, b = lo - radius, hi + radius
        seg = np.zeros(b - a, dtype=np.float64)
        s0, s1 = max(a, 0), min(b, n)
        seg[s0 - a:s1 - a] = x[s0:s1]
        acc = np.zeros(hi - lo, dtype=np.float64)
        for k in range(2 * radius + 1):
            acc += w64[k] * seg[k:k + hi - lo]
        y[lo:hi] = acc
    return y


def problem(n: int, radius: int, seed: int = SEED) -> Problem:
    rng = np.random.default_rng(seed)
    w = weights(radius, rng)
    x = uniform(rng, n)
    return Problem(inputs={"x": x, "w": w}, expected={"y": reference(x, w, radius)})


def source(kind: str, radius: int, block: int) -> tuple[str, str]:
    """(CUDA source, kernel name) of one variant."""
    return render(_TEMPLATES[kind], R=radius, B=block), f"stencil1d_{kind}"


def task_samples(n: int, radius: int) -> list[Sample]:
    """Every variant of one task."""
    taps = 2 * radius + 1
    size = f"n{count_label(n)}_r{radius}"
    kw = {"n": n, "radius": radius, "seed": SEED}
    args = (Buffer("x", "float32", n), Buffer("w", "float32", taps),
            Buffer("y", "float32", n, "out"), Scalar("n", "int32", n))
    out = []
    for kind in KINDS:
        for bs in BLOCKS:
            src, kernel = source(kind, radius, bs)
            out.append(make_sample(
                NAME, BASELINE, variant=f"{kind}_b{bs}", size=size, source=src, kernel=kernel,
                grid=(cdiv(n, bs), 1, 1), block=(bs, 1, 1), args=args, problem_kwargs=kw,
                params={"kind": kind, "block": bs, "radius": radius},
                bytes=8 * n + 4 * taps, flops=2 * taps * n,
                # weights sum to 1 and |x| < 1: the sum of 2R+1 terms is off by a few ulp at most
                atol=1e-5, rtol=1e-5,
            ))
    return out


def samples() -> list[Sample]:
    return [s for n in SIZES for r in RADII for s in task_samples(n, r)]
