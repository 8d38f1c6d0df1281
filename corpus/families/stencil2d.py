"""2-D stencils on an h x w float32 grid (row-major, zero outside the grid).

Stencils (the task): `star5` (5-point, radius 1), `star9` (radius-2 star, 9
points) and `box9` (3x3 box). Variants: neighbours read from global memory
(plain, or const __restrict__ + __ldg), a shared tile of (BY+2R) x (BX+2R) with
its halo, and `global_rowwalk` where threadIdx.x walks rows (uncoalesced).
2-D blocks from 8x8 to 32x32.
"""
from __future__ import annotations

import numpy as np

from ._render import chunks, f32_literal, make_sample, render, uniform
from .base import Buffer, Problem, Sample, Scalar, cdiv

NAME = "stencil2d"
BASELINE = "global_b16x16"
DESCRIPTION = "5/9-point 2-D stencils: global vs shared tile with halo, 2-D block shape, row-walking threads"

SIZES = ((2048, 1024), (4096, 4096), (8192, 8192))   # (h, w): 16 MB (L2), 128 MB, 512 MB of traffic
BLOCKS = ((16, 16), (32, 8), (32, 32), (64, 4), (8, 8), (32, 16))
KINDS = ("global", "global_ldg", "shared", "global_rowwalk")
SEED = 12

# stencil -> (radius, taps as (dy, dx, coefficient)); coefficients sum to 1.
STENCILS: dict[str, tuple[int, tuple[tuple[int, int, float], ...]]] = {
    "star5": (1, ((0, 0, 0.5), (-1, 0, 0.125), (1, 0, 0.125), (0, -1, 0.125), (0, 1, 0.125))),
    "star9": (2, ((0, 0, 0.4),
                  (-1, 0, 0.1), (1, 0, 0.1), (0, -1, 0.1), (0, 1, 0.1),
                  (-2, 0, 0.05), (2, 0, 0.05), (0, -2, 0.05), (0, 2, 0.05))),
    "box9": (1, ((0, 0, 0.25),
                 (-1, 0, 0.125), (1, 0, 0.125), (0, -1, 0.125), (0, 1, 0.125),
                 (-1, -1, 0.0625), (-1, 1, 0.0625), (1, -1, 0.0625), (1, 1, 0.0625))),
}

_GLOBAL = """
    #define BX $BX
    #define BY $BY
    extern "C" __global__ void __launch_bounds__(BX * BY)
    stencil2d_$KIND($PTRS, int h, int w)
    {
        int col = blockIdx.x * BX + threadIdx.x;
        int row = blockIdx.y * BY + threadIdx.y;
        if (row >= h || col >= w) return;
        float acc = 0.0f;
    $TAPS
        y[row * w + col] = acc;
    }
"""

# threadIdx.x runs down a column: a warp's 32 loads hit 32 different rows.
_ROWWALK = """
    #define BX $BX
    #define BY $BY
    extern "C" __global__ void __launch_bounds__(BX * BY)
    stencil2d_global_rowwalk(const float* x, float* y, int h, int w)
    {
        int row = blockIdx.x * BX + threadIdx.x;
        int col = blockIdx.y * BY + threadIdx.y;
        if (row >= h || col >= w) return;
        float acc = 0.0f;
    $TAPS
        y[row * w + col] = acc;
    }
"""

_SHARED = """
    #define BX $BX
    #define BY $BY
    #define R $R
    #define TW (BX + 2 * R)
    #define TH (BY + 2 * R)
    // The block's BY x BX outputs need a (BY+2R) x (BX+2R) input tile; all threads
    // load it cooperatively (zero outside the grid), then read neighbours from it.
    extern "C" __global__ void __launch_bounds__(BX * BY)
    stencil2d_shared(const float* __restrict__ x, float* __restrict__ y, int h, int w)
    {
        __shared__ float tile[TH][TW];
        int row0 = blockIdx.y * BY - R;
        int col0 = blockIdx.x * BX - R;
        for (int t = threadIdx.y * BX + threadIdx.x; t < TH * TW; t += BX * BY) {
            int tr = t / TW;
            int tc = t % TW;
            int gr = row0 + tr;
            int gc = col0 + tc;
            tile[tr][tc] = (gr >= 0 && gr < h && gc >= 0 && gc < w) ? x[gr * w + gc] : 0.0f;
        }
        __syncthreads();
        int col = blockIdx.x * BX + threadIdx.x;
        int row = blockIdx.y * BY + threadIdx.y;
        if (row >= h || col >= w) return;
        float acc = 0.0f;
    $TAPS
        y[row * w + col] = acc;
    }
"""


def _global_tap(dy: int, dx: int, coef: str, ldg: bool) -> str:
    """One tap read from global memory, guarded so out-of-grid neighbours read as 0."""
    r = "row" if dy == 0 else f"row {'+' if dy > 0 else '-'} {abs(dy)}"
    c = "col" if dx == 0 else f"col {'+' if dx > 0 else '-'} {abs(dx)}"
    conds = []
    if dy < 0:
        conds.append(f"row >= {-dy}")
    if dy > 0:
        conds.append(f"row + {dy} < h")
    if dx < 0:
        conds.append(f"col >= {-dx}")
    if dx > 0:
        conds.append(f"col + {dx} < w")
    rr = f"({r})" if dy else r
    cc = f"({c})" if dx else c
    load = f"x[{rr} * w + {cc}]"
    if ldg:
        load = f"__ldg(&{load})"
    if not conds:
        return f"acc += {coef} * {load};"
    return f"if ({' && '.join(conds)}) acc += {coef} * {load};"


def _taps(stencil: str, kind: str) -> str:
    radius, taps = STENCILS[stencil]
    lines = []
    for dy, dx, coef in taps:
        c = f32_literal(coef)
        if kind == "shared":
            lines.append(f"acc += {c} * tile[threadIdx.y + {radius + dy}][threadIdx.x + {radius + dx}];")
        else:
            lines.append(_global_tap(dy, dx, c, ldg=(kind == "global_ldg")))
    return "\n".join("    " + line for line in lines)


def source(kind: str, stencil: str, bx: int, by: int) -> tuple[str, str]:
    """(CUDA source, kernel name) of one variant."""
    taps = _taps(stencil, kind).strip()
    if kind == "shared":
        return render(_SHARED, BX=bx, BY=by, R=STENCILS[stencil][0], TAPS="    " + taps), "stencil2d_shared"
    if kind == "global_rowwalk":
        return render(_ROWWALK, BX=bx, BY=by, TAPS="    " + taps), "stencil2d_global_rowwalk"
    ptrs = ("const float* x, float* y" if kind == "global"
            else "const float* __restrict__ x, float* __restrict__ y")
    return render(_GLOBAL, BX=bx, BY=by, KIND=kind, PTRS=ptrs, TAPS="    " + taps), f"stencil2d_{kind}"


def reference(x: np.ndarray, h: int, w: int, stencil: str) -> np.ndarray:
    """The stencil in float64 with zero padding, row chunk by row chunk, cast to float32."""
    radius, taps = STENCILS[stencil]
    grid = x.reshape(h, w)
    y = np.empty((h, w), dtype=np.float32)
    for lo, hi in chunks(h, max(1, (1 << 18) // w)):
        a, b = lo - radius, hi + radius
        pad = np.zeros((b - a, w + 2 * radius), dtype=np.float64)
        s0, s1 = max(a, 0), min(b, h)
        pad[s0 - a:s1 - a, radius:radius + w] = grid[s0:s1]
        acc = np.zeros((hi - lo, w), dtype=np.float64)
        for dy, dx, coef in taps:
            acc += float(np.float32(coef)) * pad[radius + dy:radius + dy + hi - lo, radius + dx:radius + dx + w]
        y[lo:hi] = acc
    return y.reshape(-1)


def problem(h: int, w: int, stencil: str, seed: int = SEED) -> Problem:
    rng = np.random.default_rng(seed)
    x = uniform(rng, h * w)
    return Problem(inputs={"x": x}, expected={"y": reference(x, h, w, stencil)})


def task_samples(h: int, w: int, stencil: str) -> list[Sample]:
    """Every variant of one task."""
    radius, taps = STENCILS[stencil]
    size = f"h{h}w{w}_{stencil}"
    kw = {"h": h, "w": w, "stencil": stencil, "seed": SEED}
    args = (Buffer("x", "float32", h * w), Buffer("y", "float32", h * w, "out"),
            Scalar("h", "int32", h), Scalar("w", "int32", w))
    out = []
    for kind in KINDS:
        for bx, by in BLOCKS:
            src, kernel = source(kind, stencil, bx, by)
            if kind == "global_rowwalk":
                grid = (cdiv(h, bx), cdiv(w, by), 1)
            else:
                grid = (cdiv(w, bx), cdiv(h, by), 1)
            out.append(make_sample(
                NAME, BASELINE, variant=f"{kind}_b{bx}x{by}", size=size, source=src, kernel=kernel,
                grid=grid, block=(bx, by, 1), args=args, problem_kwargs=kw,
                params={"kind": kind, "block_x": bx, "block_y": by, "stencil": stencil, "radius": radius},
                bytes=8 * h * w, flops=2 * len(taps) * h * w,
                # coefficients sum to 1 and |x| < 1: a 9-term sum is off by a few ulp at most
                atol=1e-5, rtol=1e-5,
            ))
    return out


def samples() -> list[Sample]:
    return [s for h, w in SIZES for stencil in STENCILS for s in task_samples(h, w, stencil)]
