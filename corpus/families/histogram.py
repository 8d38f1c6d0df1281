"""Histogram: counts[b] = number of i with data[i] == b, for int32 data in [0, BINS).

The task is (BINS, distribution, n): 256, 1024 or 4096 bins; values uniform, or
skewed (90% of them in 8 hot bins, so atomics on those bins contend). Variants:
one global atomicAdd per element (one or ITEMS elements per thread), a
shared-memory privatised histogram per block merged into the global one with
one atomicAdd per non-empty bin (ITEMS elements per thread), and the same over
a fixed grid with a grid-stride loop. `counts` is a zero buffer.
"""
from __future__ import annotations

import numpy as np

from ._render import SM_COUNT, count_label, make_sample, render
from .base import Buffer, Problem, Sample, Scalar, cdiv

NAME = "histogram"
BASELINE = "global_i1_b256"
DESCRIPTION = "int32 histogram into 256..4096 bins, uniform or skewed: global atomics vs shared privatised"

# 8 MB (L2) .. 256 MB of input. Not 512 MB: at 128M elements the global-atomic variants
# into 256 bins took 35 ms (uniform) and 56 ms (skewed) on an H200, over the 50 ms budget.
SIZES = (2 << 20, 16 << 20, 64 << 20)
BINS = (256, 1024, 4096)
DISTS = ("uniform", "skewed")
BLOCKS = (128, 256, 1024)
HOT_BINS = 8          # skewed: this many bins get HOT_SHARE of the values
HOT_SHARE = 0.9
GRID_BLOCKS_PER_SM = 4
SEED = 13

# (kind, items per thread)
KINDS = (("global", 1), ("global", 8), ("shared", 4), ("shared_gridstride", 0))

_GLOBAL = """
    #define BLOCK $B
    #define ITEMS $ITEMS
    // Each thread adds ITEMS elements, BLOCK apart (coalesced), with one global atomic each.
    extern "C" __global__ void __launch_bounds__(BLOCK)
    hist_global(const int* __restrict__ data, int* __restrict__ counts, int n)
    {
        int base = blockIdx.x * (BLOCK * ITEMS) + threadIdx.x;
    #pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            int i = base + k * BLOCK;
            if (i < n) atomicAdd(&counts[data[i]], 1);
        }
    }
"""

_SHARED = """
    #define BLOCK $B
    #define ITEMS $ITEMS
    #define BINS $BINS
    // A per-block histogram in shared memory takes the per-element atomics; the block
    // then adds its non-empty bins to the global histogram.
    extern "C" __global__ void __launch_bounds__(BLOCK)
    hist_shared(const int* __restrict__ data, int* __restrict__ counts, int n)
    {
        __shared__ int local[BINS];
        for (int b = threadIdx.x; b < BINS; b += BLOCK) local[b] = 0;
        __syncthreads();
        int base = blockIdx.x * (BLOCK * ITEMS) + threadIdx.x;
    #pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            int i = base + k * BLOCK;
            if (i < n) atomicAdd(&local[data[i]], 1);
        }
        __syncthreads();
        for (int b = threadIdx.x; b < BINS; b += BLOCK) {
            int c = local[b];
            if (c != 0) atomicAdd(&counts[b], c);
        }
    }
"""

_GRIDSTRIDE = """
    #define BLOCK $B
    #define BINS $BINS
    // A fixed grid (gridDim.x blocks) walks the whole input; each block merges its
    // shared histogram once at the end.
    extern "C" __global__ void __launch_bounds__(BLOCK)
    hist_shared_gridstride(const int* __restrict__ data, int* __restrict__ counts, int n)
    {
        __shared__ int local[BINS];
        for (int b = threadIdx.x; b < BINS; b += BLOCK) local[b] = 0;
        __syncthreads();
        for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK)
            atomicAdd(&local[data[i]], 1);
        __syncthreads();
        for (int b = threadIdx.x; b < BINS; b += BLOCK) {
            int c = local[b];
            if (c != 0) atomicAdd(&counts[b], c);
        }
    }
"""


def values(n: int, bins: int, dist: str, rng: np.random.Generator) -> np.ndarray:
    """n int32 values in [0, bins): uniform, or HOT_SHARE of them spread over HOT_BINS random bins."""
    if dist not in DISTS:
        raise ValueError(f"unknown distribution {dist!r}; expected one of {DISTS}")
    data = rng.integers(0, bins, n, dtype=np.int32)
    if dist == "skewed":
        hot = rng.choice(bins, HOT_BINS, replace=False).astype(np.int32)
        # one draw in [0, 1000) per element: below HOT_SHARE*1000 it picks hot bin draw % HOT_BINS,
        # otherwise the uniform value stays (a lookup table keeps this fast at 128M elements)
        draw = rng.integers(0, 1000, n, dtype=np.int16)
        d = np.arange(1000)
        lut = np.where(d < int(HOT_SHARE * 1000), hot[d % HOT_BINS], -1).astype(np.int32)
        picked = lut.take(draw)
        np.copyto(data, picked, where=picked >= 0)
    return data


def problem(n: int, bins: int, dist: str, seed: int = SEED) -> Problem:
    rng = np.random.default_rng(seed)
    data = values(n, bins, dist, rng)
    counts = np.bincount(data, minlength=bins).astype(np.int32)
    return Problem(inputs={"data": data}, expected={"counts": counts})


def source(kind: str, block: int, items: int, bins: int) -> tuple[str, str]:
    """(CUDA source, kernel name) of one variant."""
    if kind == "global":
        return render(_GLOBAL, B=block, ITEMS=items), "hist_global"
    if kind == "shared":
        return render(_SHARED, B=block, ITEMS=items, BINS=bins), "hist_shared"
    return render(_GRIDSTRIDE, B=block, BINS=bins), "hist_shared_gridstride"


def task_samples(n: int, bins: int, dist: str) -> list[Sample]:
    """Every variant of one task."""
    size = f"n{count_label(n)}_bins{bins}_{dist}"
    kw = {"n": n, "bins": bins, "dist": dist, "seed": SEED}
    args = (Buffer("data", "int32", n), Buffer("counts", "int32", bins, "zero"), Scalar("n", "int32", n))
    out = []
    for kind, items in KINDS:
        for bs in BLOCKS:
            src, kernel = source(kind, bs, items, bins)
            params = {"kind": kind, "block": bs, "bins": bins, "dist": dist}
            if kind == "shared_gridstride":
                grid = min(cdiv(n, bs), SM_COUNT * GRID_BLOCKS_PER_SM)
                variant = f"{kind}_b{bs}_g{grid}"
                params["grid_blocks"] = grid
            else:
                grid = cdiv(n, bs * items)
                variant = f"{kind}_i{items}_b{bs}"
                params["items"] = items
            out.append(make_sample(
                NAME, BASELINE, variant=variant, size=size, source=src, kernel=kernel,
                grid=(grid, 1, 1), block=(bs, 1, 1), args=args, problem_kwargs=kw, params=params,
                bytes=4 * n + 4 * bins, flops=0,
                atol=0.0, rtol=0.0,   # integer counts are exact
            ))
    return out


def samples() -> list[Sample]:
    return [s for n in SIZES for bins in BINS for dist in DISTS for s in task_samples(n, bins, dist)]
